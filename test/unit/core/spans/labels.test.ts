// The label rules of issue 16: a Bash label without its set-up prefixes, file
// paths relative to the cwd or shortened from the left, secrets never half-cut.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clipAtBoundary } from '../../../../src/core/spans/clip.js';
import {
  MAX_LABEL_LENGTH,
  distinctiveCommand,
  promptLabel,
  shortPath,
  toolLabel,
} from '../../../../src/core/spans/labels.js';

describe('Bash labels drop the set-up prefix', () => {
  it.each([
    ['cd /home/me/projects/app && npm test', 'npm test'],
    ['cd "/home/me/my project" && git status', 'git status'],
    ["cd '/tmp/x y'; ls -la", 'ls -la'],
    ['cd ~/p && export NODE_ENV=test && npx vitest run a.test.ts', 'npx vitest run a.test.ts'],
    ['export A=1 B="two words" && make', 'make'],
    ['set -euo pipefail; cd build && cmake ..', 'cmake ..'],
    ['pushd vendor && git pull', 'git pull'],
    // A step ended by a line break, as Claude Code writes multi-line commands.
    ['cd ~/a/long/project/dir\nfor p in a b; do echo $p; done', 'for p in a b; do echo $p; done'],
    ['cd /p\r\nnpm test', 'npm test'],
    ['set -e\ncd build\n\nmake', 'make'],
    ['export CI=1 \ncd x && ls', 'ls'],
    // A line break inside a step is no step of ours.
    ['cd\nls', 'cd\nls'],
    ['cd /p\n', 'cd /p\n'],
    // Not a prefix: kept as it is.
    ['npm test && cd dist', 'npm test && cd dist'],
    ['cd /somewhere', 'cd /somewhere'],
    ['cd a && ', 'cd a && '],
    ['cdk deploy && ls', 'cdk deploy && ls'],
    ['export PATH=$PATH:/x', 'export PATH=$PATH:/x'],
  ])('%s → %s', (command, distinctive) => {
    expect(distinctiveCommand(command)).toBe(distinctive);
  });

  it('shows in the label, the full command staying in the input', () => {
    const input = { command: 'cd /home/me/projects/app && npm run build' };
    expect(toolLabel('Bash', input, '/home/me/projects/app')).toBe('Bash: npm run build');
    expect(input.command).toBe('cd /home/me/projects/app && npm run build');
  });

  it('shows what follows a set-up line in the label, on one line', () => {
    const command = 'cd ~/a/long/project/dir\nfor p in a b; do\n  echo $p\ndone';
    expect(toolLabel('Bash', { command }, null)).toBe('Bash: for p in a b; do echo $p done');
  });

  it('keeps the description when there is no command', () => {
    expect(toolLabel('Bash', { description: 'List files' }, null)).toBe('Bash: List files');
  });

  it('takes linear time on a long prefix that never ends in &&', () => {
    const command = `cd ${'a'.repeat(50_000)}`;
    expect(distinctiveCommand(command)).toBe(command);
  });

  it('never leaves half a secret behind', () => {
    const token = `ghp_${'A'.repeat(36)}`;
    const label = toolLabel('Bash', { command: `cd /p && curl -H ${token.repeat(4)}` }, '/p');
    expect(label).toBe('Bash: curl -H …');
  });
});

describe('file paths', () => {
  it.each([
    ['/p/src/auth.ts', '/p', 'src/auth.ts'],
    ['/p/src/auth.ts', '/p/', 'src/auth.ts'],
    ['/elsewhere/x.ts', '/p', '/elsewhere/x.ts'],
    ['/home/me/other/project/src/auth.ts', '/p', '…/src/auth.ts'],
    ['/home/me/other/project/src/auth.ts', null, '…/src/auth.ts'],
    ['/pp/src/auth.ts', '/p', '/pp/src/auth.ts'],
    [
      '/p/packages/server/src/modules/authentication/providers/oauth.ts',
      '/p',
      '…/authentication/providers/oauth.ts',
    ],
    [
      '/p/a-really-long-file-name-that-is-longer-than-forty-characters.ts',
      '/p',
      'a-really-long-file-name-that-is-longer-than-forty-characters.ts',
    ],
    // Windows sessions: backslashes, drive letters in either case, the cwd as Claude Code wrote it.
    ['D:\\oh-my-posh\\src\\engine\\prompt.go', 'D:\\oh-my-posh', 'src\\engine\\prompt.go'],
    ['d:\\oh-my-posh\\src\\main.go', 'D:\\oh-my-posh\\', 'src\\main.go'],
    ['D:\\oh-my-posh-themes\\a.json', 'D:\\oh-my-posh', 'D:\\oh-my-posh-themes\\a.json'],
    ['C:\\Users\\jane\\other\\project\\src\\auth.ts', 'D:\\oh-my-posh', '…\\src\\auth.ts'],
    ['C:\\Windows\\hosts', null, 'C:\\Windows\\hosts'],
    ['D:/work/app/src/a.ts', 'D:\\work\\app', 'src/a.ts'],
    ['\\\\server\\share\\team\\docs\\notes.md', null, '…\\docs\\notes.md'],
  ])('%s in %s → %s', (path, cwd, shown) => {
    expect(shortPath(path, cwd)).toBe(shown);
  });

  it('shorten the label of each file tool', () => {
    const far = '/home/me/other/project/src/auth.ts';
    for (const tool of ['Read', 'Write', 'Edit', 'MultiEdit'])
      expect(toolLabel(tool, { file_path: far }, '/p')).toBe(`${tool}: …/src/auth.ts`);
    expect(toolLabel('NotebookEdit', { notebook_path: '/p/nb/a.ipynb' }, '/p')).toBe(
      'NotebookEdit: nb/a.ipynb',
    );
  });

  it("shorten a Windows session's file tools against its D:\\ cwd, keeping its backslashes", () => {
    const cwd = 'D:\\proj';
    expect(toolLabel('Read', { file_path: 'D:\\proj\\src\\a.ts' }, cwd)).toBe('Read: src\\a.ts');
    expect(toolLabel('Edit', { file_path: 'd:\\proj\\src\\a.ts' }, cwd)).toBe('Edit: src\\a.ts');
    expect(toolLabel('Write', { file_path: 'C:\\Users\\jane\\notes\\todo\\a.md' }, cwd)).toBe(
      'Write: …\\todo\\a.md',
    );
  });
});

describe('long subjects are collapsed only as far as the label shows', () => {
  // The plain definition: the whole text on one line, then cut.
  const plain = (prefix: string, text: string): string =>
    clipAtBoundary(prefix + text.replace(/\s+/g, ' ').trim(), MAX_LABEL_LENGTH - 1);
  const piece = fc.oneof(
    fc.constantFrom(
      ' ',
      '  ',
      '\n',
      '\t \n',
      '\u00a0',
      '\u2028',
      'x',
      'ab',
      '"',
      ':',
      '😀',
      '\uD83D',
    ),
    fc.string({ maxLength: 12 }),
    fc.nat(700).map((n) => ' '.repeat(n)),
    fc.nat(700).map((n) => 'y'.repeat(n)),
  );
  const text = fc.array(piece, { maxLength: 60 }).map((parts) => parts.join(''));

  it('gives the label the whole text would give, for tools and prompts', () => {
    fc.assert(
      fc.property(text, (t) => {
        if (t.trim() !== '') expect(toolLabel('Foo', { x: t }, null)).toBe(plain('Foo: ', t));
        if (!t.includes('<command-name>')) expect(promptLabel(t)).toBe(plain('', t));
      }),
      { numRuns: 5_000 },
    );
  });
});
