// Where Claude Code keeps transcripts when no --projects-dir is given.
//
// Claude Code has written its user dir to more than one place: ~/.claude on
// every platform, and since about 1.0.30 $XDG_CONFIG_HOME/claude (default
// ~/.config/claude) on Linux (anthropics/claude-code#2277). A machine that was
// upgraded can have sessions in both, often one a symlink to the other, so every
// default that exists is read, once per real path. $CLAUDE_CONFIG_DIR replaces
// the defaults: one dir as Claude Code takes it, or a comma list as ccusage does.
import { realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { posix, win32 } from 'node:path';

export interface ProjectsDirCandidate {
  /** The projects dir itself (<config dir>/projects). */
  path: string;
  /** Why it is a candidate, for `config check`. */
  why: string;
  /** It exists and is a directory. */
  found: boolean;
  /** An earlier candidate with the same real path (a symlink or the same dir twice). */
  sameAs: string | null;
}

const isDir = (path: string): boolean => {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
};

/** The path with symlinks resolved; the path itself when it cannot be. */
export const realPathOf = (path: string): string => {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
};

function candidatePaths(
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform,
): { path: string; why: string }[] {
  const path = platform === 'win32' ? win32 : posix;
  const configDir = env.CLAUDE_CONFIG_DIR?.trim();
  if (configDir !== undefined && configDir !== '') {
    return configDir
      .split(',')
      .map((d) => d.trim())
      .filter((d) => d !== '')
      .map((d) => ({ path: path.join(d, 'projects'), why: '$CLAUDE_CONFIG_DIR' }));
  }
  if (platform === 'win32') {
    const home = env.USERPROFILE ?? homedir();
    return [{ path: path.join(home, '.claude', 'projects'), why: '%USERPROFILE%\\.claude' }];
  }
  const home = env.HOME ?? homedir();
  const xdg = env.XDG_CONFIG_HOME;
  // The XDG spec ignores a relative $XDG_CONFIG_HOME.
  const xdgSet = xdg !== undefined && path.isAbsolute(xdg);
  return [
    {
      path: path.join(xdgSet ? xdg : path.join(home, '.config'), 'claude', 'projects'),
      why: xdgSet
        ? '$XDG_CONFIG_HOME/claude: Claude Code on Linux since about 1.0.30'
        : '~/.config/claude, XDG default: Claude Code on Linux since about 1.0.30',
    },
    { path: path.join(home, '.claude', 'projects'), why: "~/.claude: Claude Code's home dir" },
  ];
}

/** Every default location, whether it exists, and which are the same dir. */
export function projectsDirCandidates(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): ProjectsDirCandidate[] {
  const seen = new Map<string, string>();
  return candidatePaths(env, platform).map(({ path, why }) => {
    const found = isDir(path);
    if (!found) return { path, why, found, sameAs: null };
    const real = realPathOf(path);
    const sameAs = seen.get(real) ?? null;
    if (sameAs === null) seen.set(real, path);
    return { path, why, found, sameAs };
  });
}

/**
 * The default projects dirs: every candidate that exists, once per real path.
 * When none exists, all candidates, so that errors name where ccotel looked
 * (and `watch` picks the dir up once Claude Code creates it).
 */
export function defaultProjectsDirs(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): string[] {
  const candidates = projectsDirCandidates(env, platform);
  const found = candidates.filter((c) => c.found && c.sameAs === null);
  return (found.length > 0 ? found : candidates).map((c) => c.path);
}
