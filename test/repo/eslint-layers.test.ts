// The layer rules of eslint.config.js hold at any depth: a core module in a
// stage folder that reaches an adapter, an app module that reaches the CLI or
// the file system, an adapter that reaches up into app. Each planted import is
// linted with the repository's own config and must be reported.
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

const eslint = new ESLint({
  cwd: ROOT,
  // Only the layer rules: the type-aware ones need files the TS project knows.
  ruleFilter: ({ ruleId }) =>
    ruleId === 'no-restricted-imports' || ruleId === 'no-restricted-globals',
  overrideConfig: { languageOptions: { parserOptions: { projectService: false } } },
});

async function problems(file: string, text: string): Promise<string[]> {
  const [result] = await eslint.lintText(text, { filePath: join(ROOT, file) });
  return (result?.messages ?? []).map((m) => `${m.ruleId ?? 'parse'}: ${m.message}`);
}

const cases: { file: string; text: string; rule: string }[] = [
  {
    file: 'src/core/a/b/x.ts',
    text: "import '../../../adapters/files/read-lines.js';\n",
    rule: 'no-restricted-imports',
  },
  {
    file: 'src/core/a/x.ts',
    text: "import '../../app/export/run.js';\n",
    rule: 'no-restricted-imports',
  },
  {
    file: 'src/core/a/b/x.ts',
    text: "import '../../../cli/run.js';\n",
    rule: 'no-restricted-imports',
  },
  { file: 'src/core/a/b/x.ts', text: "import 'node:fs';\n", rule: 'no-restricted-imports' },
  {
    file: 'src/core/a/b/x.ts',
    text: 'export const n = process.pid;\n',
    rule: 'no-restricted-globals',
  },
  {
    file: 'src/app/watch/a/b/x.ts',
    text: "import '../../../../cli/run.js';\n",
    rule: 'no-restricted-imports',
  },
  {
    file: 'src/app/watch/a/x.ts',
    text: "import 'node:fs/promises';\n",
    rule: 'no-restricted-imports',
  },
  {
    file: 'src/app/a/b/x.ts',
    text: 'export const f = (): void => void setTimeout(() => 0, 1);\n',
    rule: 'no-restricted-globals',
  },
  {
    file: 'src/adapters/a/b/x.ts',
    text: "import '../../../app/watch/daemon.js';\n",
    rule: 'no-restricted-imports',
  },
  {
    file: 'src/adapters/a/x.ts',
    text: "import '../../cli/run.js';\n",
    rule: 'no-restricted-imports',
  },
];

describe('eslint layer rules at depth', () => {
  for (const c of cases) {
    it(`${c.file}: ${c.text.trim()} is refused`, async () => {
      const found = await problems(c.file, c.text);
      expect(
        found.some((p) => p.startsWith(`${c.rule}:`)),
        found.join('\n'),
      ).toBe(true);
    });
  }

  it('allows what the layers allow: app and adapters reaching core, a core stage reaching another', async () => {
    expect(await problems('src/app/a/b/x.ts', "import '../../../core/spans/build.js';\n")).toEqual(
      [],
    );
    expect(await problems('src/adapters/a/x.ts', "import '../../core/clock.js';\n")).toEqual([]);
    expect(await problems('src/core/a/x.ts', "import '../b/y.js';\n")).toEqual([]);
    expect(await problems('src/cli/a/x.ts', "import '../../app/watch/daemon.js';\n")).toEqual([]);
  });
});
