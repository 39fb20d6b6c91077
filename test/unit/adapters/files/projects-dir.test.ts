// Default projects dirs per platform and environment (real dirs in a temp
// home), and the cwd a Windows-side project dir name encodes. The platform is
// a parameter, so Linux's and Windows' rules are both checked on every host;
// the Linux/macOS paths are built with posix.join, as the code builds them.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  defaultProjectsDirs,
  projectsDirCandidates,
} from '../../../../src/adapters/files/projects-dir.js';
import { cwdFromProjectDirName } from '../../../../src/core/transcript/project-dir-name.js';
import { ON_WINDOWS } from '../../../support/platform.js';

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'ccotel-home-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

describe('default projects dirs', () => {
  it('Linux/macOS: the XDG dir, then ~/.claude; none existing → both, to be named', () => {
    const xdg = posix.join(home, '.config', 'claude', 'projects');
    const dot = posix.join(home, '.claude', 'projects');
    expect(projectsDirCandidates({ HOME: home }, 'linux').map((c) => c.path)).toEqual([xdg, dot]);
    expect(defaultProjectsDirs({ HOME: home }, 'linux')).toEqual([xdg, dot]);
    mkdirSync(dot, { recursive: true });
    expect(defaultProjectsDirs({ HOME: home }, 'darwin')).toEqual([dot]);
    mkdirSync(xdg, { recursive: true });
    expect(defaultProjectsDirs({ HOME: home }, 'linux')).toEqual([xdg, dot]);
  });

  it.skipIf(ON_WINDOWS)(
    'a symlinked ~/.claude/projects is read once, and said to be the same (skipped on Windows: symlinks need a privilege there)',
    () => {
      const xdg = posix.join(home, '.config', 'claude', 'projects');
      mkdirSync(xdg, { recursive: true });
      mkdirSync(posix.join(home, '.claude'));
      symlinkSync(xdg, posix.join(home, '.claude', 'projects'));
      expect(defaultProjectsDirs({ HOME: home }, 'linux')).toEqual([xdg]);
      expect(projectsDirCandidates({ HOME: home }, 'linux')[1]?.sameAs).toBe(xdg);
    },
  );

  it('$XDG_CONFIG_HOME when absolute; a relative one is ignored, as the XDG spec says', () => {
    // POSIX paths that need not exist: a Windows host's temp dir is not absolute to posix.
    const env = { HOME: '/home/jane', XDG_CONFIG_HOME: '/srv/cfg' };
    expect(projectsDirCandidates(env, 'linux')[0]?.path).toBe('/srv/cfg/claude/projects');
    expect(projectsDirCandidates({ ...env, XDG_CONFIG_HOME: 'cfg' }, 'linux')[0]?.path).toBe(
      '/home/jane/.config/claude/projects',
    );
  });

  it('$CLAUDE_CONFIG_DIR: one dir, or a comma list, replaces the defaults', () => {
    expect(defaultProjectsDirs({ HOME: home, CLAUDE_CONFIG_DIR: '/a' }, 'linux')).toEqual([
      '/a/projects',
    ]);
    expect(defaultProjectsDirs({ HOME: home, CLAUDE_CONFIG_DIR: '/a, /b,' }, 'linux')).toEqual([
      '/a/projects',
      '/b/projects',
    ]);
  });

  it('Windows: %USERPROFILE%\\.claude\\projects, with Windows separators', () => {
    const env = { USERPROFILE: 'C:\\Users\\jane', HOME: '/ignored' };
    expect(projectsDirCandidates(env, 'win32')).toEqual([
      {
        path: 'C:\\Users\\jane\\.claude\\projects',
        why: '%USERPROFILE%\\.claude',
        found: false,
        sameAs: null,
      },
    ]);
    expect(defaultProjectsDirs({ CLAUDE_CONFIG_DIR: 'D:\\claude' }, 'win32')).toEqual([
      'D:\\claude\\projects',
    ]);
  });
});

describe('cwd from a project dir name', () => {
  it('decodes a drive-letter name into a Windows path', () => {
    expect(cwdFromProjectDirName('C--Users-jane-code-app')).toBe('C:\\Users\\jane\\code\\app');
    expect(cwdFromProjectDirName('d--work')).toBe('D:\\work');
    expect(cwdFromProjectDirName('C--')).toBe('C:\\');
  });

  it("reads every '-' after the drive as a separator: D:\\oh-my-posh, named D--oh-my-posh, comes back D:\\oh\\my\\posh", () => {
    // Claude Code writes each character but a letter or digit as '-', so the name cannot tell.
    expect(cwdFromProjectDirName('D--oh-my-posh')).toBe('D:\\oh\\my\\posh');
    expect(cwdFromProjectDirName('D--Users-jane-my-app')).toBe('D:\\Users\\jane\\my\\app');
  });

  it('leaves every other name undecoded (POSIX names, random suffixes)', () => {
    expect(cwdFromProjectDirName('-home-jane-app')).toBeNull();
    expect(cwdFromProjectDirName('-EcDCzn')).toBeNull();
    expect(cwdFromProjectDirName('CD--x')).toBeNull();
    expect(cwdFromProjectDirName('C-Users')).toBeNull();
  });
});
