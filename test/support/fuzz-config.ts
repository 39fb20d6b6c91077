// Seeded, bounded fast-check runs: modest by default so CI stays within its
// budget, larger when CCOTEL_FUZZ_RUNS is set (CCOTEL_FUZZ_SEED replays a run).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Parameters } from 'fast-check';
import { parseAgentMeta } from '../../src/core/transcript/agent-meta.js';
import type { AgentMeta } from '../../src/core/session/state.js';
import type { MemFile } from './model-checks.js';

const envRuns = Number(process.env.CCOTEL_FUZZ_RUNS ?? '');
export const FUZZ_RUNS_OVERRIDE = Number.isInteger(envRuns) && envRuns > 0 ? envRuns : null;
const envSeed = Number(process.env.CCOTEL_FUZZ_SEED ?? '');
export const FUZZ_SEED =
  Number.isInteger(envSeed) && process.env.CCOTEL_FUZZ_SEED !== undefined ? envSeed : 20_260_210;

/** fast-check parameters: `base` runs by default, CCOTEL_FUZZ_RUNS when set. */
export function fuzz<T>(base: number, extra: Parameters<T> = {}): Parameters<T> {
  return { numRuns: FUZZ_RUNS_OVERRIDE ?? base, seed: FUZZ_SEED, endOnFailure: true, ...extra };
}

export interface FixtureSession {
  name: string;
  files: MemFile[];
  metas: AgentMeta[];
}

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...walk(path));
    else out.push(path);
  }
  return out;
}

const AGENT = /(?:^|\/)agent-([^/]+)\.jsonl$/;

/**
 * Every fixture transcript as an in-memory session. A file under <sid>/subagents/
 * (or a flat agent-*.jsonl) joins the session of its folder; every other .jsonl
 * is a main file of its own.
 */
export function fixtureSessions(
  roots = ['fixtures/real', 'fixtures/real-layout', 'fixtures/hand', 'fixtures/secrets'],
): FixtureSession[] {
  const sessions: FixtureSession[] = [];
  for (const root of roots) {
    let paths: string[];
    try {
      paths = walk(root);
    } catch {
      continue;
    }
    const byDir = new Map<string, FixtureSession>();
    for (const path of paths.filter((p) => p.endsWith('.jsonl') && !AGENT.test(p))) {
      const s: FixtureSession = {
        name: path,
        files: [{ file: path, agentId: null, bytes: readFileSync(path) }],
        metas: [],
      };
      sessions.push(s);
      byDir.set(path.slice(0, -'.jsonl'.length), s);
      const dir = path.slice(0, path.lastIndexOf('/'));
      if (!byDir.has(`dir:${dir}`)) byDir.set(`dir:${dir}`, s);
    }
    for (const path of paths) {
      const agent = AGENT.exec(path);
      const meta = /agent-[^/]+\.meta\.json$/.test(path);
      if (agent === null && !meta) continue;
      const sessionDir = path.replace(/\/subagents\/.*$/, '');
      const owner =
        byDir.get(sessionDir) ?? byDir.get(`dir:${path.slice(0, path.lastIndexOf('/'))}`);
      if (owner === undefined) continue;
      if (agent?.[1] !== undefined)
        owner.files.push({ file: path, agentId: agent[1], bytes: readFileSync(path) });
      else {
        const parsed = parseAgentMeta(path, readFileSync(path, 'utf8'));
        if (parsed !== null) owner.metas.push(parsed);
      }
    }
  }
  return sessions;
}

/** Lines of a buffer, newline kept off; the last element is the unterminated tail ('' when none). */
export function linesOf(bytes: Buffer): string[] {
  return bytes.toString('utf8').split('\n');
}
