// Every session under fixtures/, once: the tests that hold two code paths
// equal (fast-path equivalence, the OTLP/JSON writer, span counting) run them
// on all of it.
import { readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findSessions, type SessionFiles } from '../../src/adapters/files/session-files.js';

export const FIXTURES_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../fixtures');

/** Every directory under `dir` holding transcripts directly: each is a project dir. */
function transcriptDirs(dir: string): string[] {
  const names = readdirSync(dir);
  const here = names.some((n) => n.endsWith('.jsonl')) ? [dir] : [];
  const below = names
    .filter((n) => statSync(join(dir, n)).isDirectory() && n !== 'subagents')
    .flatMap((n) => transcriptDirs(join(dir, n)));
  return [...here, ...below];
}

/** Each fixture session once (by main file), in the order of their main files. */
export async function fixtureSessions(dir: string = FIXTURES_DIR): Promise<SessionFiles[]> {
  const byMain = new Map<string, SessionFiles>();
  for (const d of transcriptDirs(dir))
    for (const s of await findSessions(d)) byMain.set(s.mainFile, s);
  return [...byMain.values()].sort((a, b) => (a.mainFile < b.mainFile ? -1 : 1));
}
