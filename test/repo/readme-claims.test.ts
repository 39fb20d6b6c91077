// Claims of README.md and the fixture notes that a file in the repository can
// hold: no pointer to material users do not have, the dashboard's real name.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');

/** README.md, docs/*.md, the fixture folders' README.md files and the real fixtures' provenance. */
function docs(): string[] {
  const inDocs = readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`);
  const fixtureNotes = readdirSync(join(ROOT, 'fixtures'), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => `fixtures/${d.name}/README.md`)
    .filter((f) => {
      try {
        read(f);
        return true;
      } catch {
        return false;
      }
    });
  return ['README.md', 'fixtures/real/SOURCES.md', ...inDocs, ...fixtureNotes];
}

describe('README and docs', () => {
  it('point at nothing outside the repository but as a citation (no shared/ paths)', () => {
    for (const file of docs()) {
      const text = read(file);
      expect(text, file).not.toMatch(/`shared\/|\(shared\/|\]\(\.\.\/shared/);
    }
  });

  it('name only source and test files that exist (not the fixture notes, which name paths inside transcripts, nor the history in docs/benchmarks.md)', () => {
    const named = /`((?:src|test|bench)\/[\w./-]+\.(?:ts|mjs|js))`/g;
    for (const file of docs().filter(
      (f) => !f.startsWith('fixtures/') && f !== 'docs/benchmarks.md',
    )) {
      for (const [, path] of read(file).matchAll(named)) {
        expect(existsSync(join(ROOT, path as string)), `${file} names ${path}`).toBe(true);
      }
    }
  });

  it('name the Grafana dashboard by its title', () => {
    const title = (JSON.parse(read('docker/grafana/dashboards/ccotel.json')) as { title: string })
      .title;
    expect(title).toBe('ccotel: Claude Code sessions');
    expect(read('README.md')).toContain(`dashboard "${title}"`);
  });
});
