// `ccotel status` on the real transcripts, laid out as ~/.claude/projects, and
// checked against what a person reading each file's tail would say.
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitCodeOf } from '../../src/cli/exit-code.js';
import { UserError } from '../../src/core/user-error.js';
import type { StatusJson } from '../../src/app/status/status-view.js';
import type { CommandIo } from '../../src/cli/command-io.js';
import { runStatusCommand } from '../../src/cli/commands/status.js';

const REAL = 'fixtures/real';
const REAL_LAYOUT = 'fixtures/real-layout';
/** After every sample: staleness applies, and relative times are stable. */
const NOW = '2026-09-01T00:00:00.000Z';

let dir: string;
let realRoot: string;
let layoutRoot: string;

/**
 * fixtures/real names encode their origin path with "/" → "__"; the last two
 * segments are <project>/<session>.jsonl, and sub-agent files keep their
 * <session>/subagents/ folder.
 */
function layoutPath(name: string): string {
  const seg = name.split('__');
  const sub = seg.indexOf('subagents');
  if (sub >= 2)
    return join(seg[sub - 2] ?? '', seg[sub - 1] ?? '', 'subagents', seg[seg.length - 1] ?? '');
  return join(seg[seg.length - 2] ?? '', seg[seg.length - 1] ?? '');
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ccotel-status-'));
  realRoot = join(dir, 'projects');
  for (const name of readdirSync(REAL).filter((n) => n.endsWith('.jsonl'))) {
    const target = join(realRoot, layoutPath(name));
    mkdirSync(dirname(target), { recursive: true });
    cpSync(join(REAL, name), target);
  }
  layoutRoot = join(dir, 'layout');
  cpSync(REAL_LAYOUT, layoutRoot, { recursive: true });
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function status(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CommandIo = {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    env: {},
    isTTY: false,
    columns: 120,
    stopSignal: new Promise(() => undefined),
  };
  const code = await runStatusCommand(args, io);
  return { code, stdout, stderr };
}

async function statusJson(args: string[]): Promise<StatusJson[]> {
  const { code, stdout } = await status(['--json', ...args]);
  expect(code).toBe(0);
  return JSON.parse(stdout) as StatusJson[];
}

interface Expected {
  state: StatusJson['state'];
  lastActivity: string;
  /** What the tail of the file shows, and so why the state is right. */
  why: string;
}

const API_ERROR_WHY =
  'The only prompt ("\\u0015/exit", a typed /exit sent as text) got the synthetic rate_limit line "You\'re out of extra usage"; ' +
  'what follows is client output of a local command (a caveat, then "Unknown skill: rate-limit-options"), not a new turn. ' +
  'A person says: this session hit its usage limit — api_error.';

/** Keyed by <project>/<session>.jsonl under the laid-out fixtures/real. */
const REAL_EXPECTED: Record<string, Expected> = {
  '-hdyTUt/305d01e1-9f36-4024-87ff-a1fc2a7818e0.jsonl': {
    state: 'api_error',
    lastActivity: '2026-02-01T04:04:19.500Z',
    why: API_ERROR_WHY,
  },
  '-HlgSIH/d108d7b3-ab6d-4ca8-85a9-dfb59ed77168.jsonl': {
    state: 'api_error',
    lastActivity: '2026-02-01T04:04:21.193Z',
    why: API_ERROR_WHY,
  },
  '-sWDQt9/f0deec76-7877-4db6-a60a-900645237786.jsonl': {
    state: 'api_error',
    lastActivity: '2026-02-01T04:04:22.866Z',
    why: API_ERROR_WHY,
  },
  '-ILyRrt/a8b05e55-24bc-49a4-a8cb-7b9d479c2cbf.jsonl': {
    state: 'api_error',
    lastActivity: '2026-02-01T04:04:25.537Z',
    why: API_ERROR_WHY,
  },
  '-QXf9Mc/f0eff14a-9d8a-41d5-89a0-650b27b5c60b.jsonl': {
    state: 'api_error',
    lastActivity: '2026-02-01T04:04:27.304Z',
    why: API_ERROR_WHY,
  },
  '-te1EWG/f3ba0bdb-562d-4ca3-9069-3e5122f4ccc9.jsonl': {
    state: 'interrupted',
    lastActivity: '2026-02-01T04:11:56.024Z',
    why: 'Bash call rejected at the permission dialog (is_error result), then "[Request interrupted by user for tool use]", then /exit — a local command that hands nothing to the model.',
  },
  '-EcDCzn/5bd47723-950c-4c20-917e-77acb15dc4ea.jsonl': {
    state: 'your_turn',
    lastActivity: '2026-02-02T05:25:37.816Z',
    why: 'Ends with the text answer "3 + 3 = 6" (stop_reason null, as all 2.1.29 lines) and nothing after it; the prompt-suggestion sub-agents interrupted in their own files are sidechains.',
  },
  '-EcDCzn/5c91b750-86c7-44d8-bb93-e5046ff2c302.jsonl': {
    state: 'your_turn',
    lastActivity: '2026-02-02T05:25:38.334Z',
    why: "The session /clear started: only the /clear and /exit local-command blocks. No conversation, but each command printed its output and returned to the idle prompt — the user's move.",
  },
  '-vyPJVq/8aa54c1d-5030-4491-be42-e0c416424b8a.jsonl': {
    state: 'your_turn',
    lastActivity: '2026-02-02T05:26:04.362Z',
    why: 'Last turn answered ("3 + 3 = 6"); then a manual /compact (boundary, compact summary, command block) and /exit — none of them is a prompt.',
  },
  '-caLMT9/c2fc3a3f-66d5-4c87-9f78-1a31dd719471.jsonl': {
    state: 'interrupted',
    lastActivity: '2026-02-02T05:38:30.493Z',
    why: 'Edit rejected at the permission dialog, "[Request interrupted by user for tool use]", then /exit.',
  },
  '-lvcsb6/d266fdf5-b6a3-46aa-8627-920959a0109a.jsonl': {
    state: 'your_turn',
    lastActivity: '2026-02-02T04:11:12.367Z',
    why: 'Final text answer, Stop-hook progress and a stop_hook_summary confirming the end of the turn, then /exit.',
  },
  'sample-project/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl': {
    state: 'your_turn',
    lastActivity: '2025-09-03T00:47:52.264Z',
    why: '1.0.98 /init session: the last line is a text answer with stop_reason end_turn after the TodoWrite result.',
  },
  'sample-project/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl': {
    state: 'your_turn',
    lastActivity: '2025-09-07T09:54:26.499Z',
    why: '1.0.108: every tool call has its result; the last line is the (Japanese) summary text answer.',
  },
  'sample-project/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl': {
    state: 'your_turn',
    lastActivity: '2025-09-03T01:02:03.665Z',
    why: '1.0.98 with inline sidechains: their end_turn answers do not count; the second prompt ("Thanks! Please update CLAUDE.md") ends with a Write, its result and a text answer.',
  },
  'test_fixtures_transcripts/short.jsonl': {
    state: 'interrupted',
    lastActivity: '2026-02-10T21:16:12.381Z',
    why: 'Parallel Bash + Glob both end in is_error results and "[Request interrupted by user for tool use]"; four minutes later a /model local command (system local_command records) changes nothing.',
  },
  'test_fixtures_transcripts/subagent.jsonl': {
    state: 'your_turn',
    lastActivity: '2026-02-10T22:03:51.807Z',
    why: 'The final "## Beads Created" text after the last Bash result, Stop-hook progress, then stop_hook_summary.',
  },
  'test_fixtures_transcripts/tool_heavy.jsonl': {
    state: 'interrupted',
    lastActivity: '2026-02-10T22:59:46.748Z',
    why: 'The WebFetch result came back, and 4 s later the user pressed Esc while the model was thinking: "[Request interrupted by user]" is the last line.',
  },
  'claude-code-2.1.73/session-excerpt.jsonl': {
    state: 'your_turn',
    lastActivity: '2026-03-11T23:22:34.755Z',
    why: 'The summary text with stop_reason end_turn, then turn_duration (the trailing last-prompt line has no time).',
  },
  'claude-code-2.1.228/subagent-spawn-excerpt.jsonl': {
    state: 'unknown',
    lastActivity: '2026-08-12T21:56:00.699Z',
    why:
      'A three-line excerpt: the only main-thread line is a <task-notification> (a background agent reporting back, which would hand the model a new move) with ' +
      'its timestamp elided, so "working" — but its last event (a sub-agent line) is weeks before NOW: stale, so unknown. A person would say "can\'t tell from this".',
  },
};

/** fixtures/real-layout holds the same claudeless sessions in their original layout. */
const LAYOUT_EXPECTED: Record<string, string> = {
  'clear-command/5bd47723-950c-4c20-917e-77acb15dc4ea.jsonl':
    '-EcDCzn/5bd47723-950c-4c20-917e-77acb15dc4ea.jsonl',
  'clear-command/5c91b750-86c7-44d8-bb93-e5046ff2c302.jsonl':
    '-EcDCzn/5c91b750-86c7-44d8-bb93-e5046ff2c302.jsonl',
  'compact-command/8aa54c1d-5030-4491-be42-e0c416424b8a.jsonl':
    '-vyPJVq/8aa54c1d-5030-4491-be42-e0c416424b8a.jsonl',
  'edit-permission-dialog/c2fc3a3f-66d5-4c87-9f78-1a31dd719471.jsonl':
    '-caLMT9/c2fc3a3f-66d5-4c87-9f78-1a31dd719471.jsonl',
  'hook-stop/d266fdf5-b6a3-46aa-8627-920959a0109a.jsonl':
    '-lvcsb6/d266fdf5-b6a3-46aa-8627-920959a0109a.jsonl',
};

describe('ccotel status on the real transcripts', () => {
  it('gives each sample the state a person reading its tail would give', async () => {
    const rows = await statusJson(['--hours', '100000', '--now', NOW, '--projects-dir', realRoot]);
    const got = Object.fromEntries(
      rows.map((r) => [
        relative(realRoot, r.file),
        { state: r.state, lastActivity: r.lastActivity },
      ]),
    );
    const want = Object.fromEntries(
      Object.entries(REAL_EXPECTED).map(([k, v]) => [
        k,
        { state: v.state, lastActivity: v.lastActivity },
      ]),
    );
    // Sub-agent files are never listed as sessions.
    expect(got).toEqual(want);
  });

  it('the same sessions in the original layout read the same', async () => {
    const rows = await statusJson([
      '--hours',
      '100000',
      '--now',
      NOW,
      '--projects-dir',
      layoutRoot,
    ]);
    expect(rows.map((r) => relative(layoutRoot, r.file)).sort()).toEqual(
      Object.keys(LAYOUT_EXPECTED).sort(),
    );
    for (const row of rows) {
      const twin = REAL_EXPECTED[LAYOUT_EXPECTED[relative(layoutRoot, row.file)] ?? ''];
      expect([row.state, row.lastActivity]).toEqual([twin?.state, twin?.lastActivity]);
    }
  });

  it('fills the JSON contract: project from cwd, ISO times, newest first, several roots at once', async () => {
    const rows = await statusJson([
      '--hours',
      '100000',
      '--now',
      NOW,
      '--projects-dir',
      realRoot,
      '--projects-dir',
      layoutRoot,
    ]);
    expect(rows).toHaveLength(
      Object.keys(REAL_EXPECTED).length + Object.keys(LAYOUT_EXPECTED).length,
    );
    const times = rows.map((r) => Date.parse(r.lastActivity));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    const hookStop = rows.find(
      (r) => r.file === join(realRoot, '-lvcsb6/d266fdf5-b6a3-46aa-8627-920959a0109a.jsonl'),
    );
    expect(hookStop).toMatchObject({
      sessionId: 'd266fdf5-b6a3-46aa-8627-920959a0109a',
      project: '/tmp/workspace',
      cwd: '/tmp/workspace',
      state: 'your_turn',
      lastActivity: '2026-02-02T04:11:12.367Z',
      openToolCalls: [],
      version: '2.1.29',
    });
    const rateLimited = rows.find((r) => r.sessionId === '305d01e1-9f36-4024-87ff-a1fc2a7818e0');
    expect(rateLimited).toMatchObject({
      state: 'api_error',
      errorType: 'rate_limit',
      lastPromptAt: '2026-02-01T04:04:18.837Z',
    });
    const excerpt = rows.find((r) => r.sessionId === 'subagent-spawn-excerpt');
    // No record carries a cwd: the project falls back to the directory name.
    expect(excerpt).toMatchObject({ project: 'claude-code-2.1.228', cwd: null, stale: true });
  });

  it('--hours keeps only sessions whose last event is recent enough (by event time, not file mtime)', async () => {
    // The copies were just written (mtime = now): event times decide. 200 days
    // before NOW is 2026-02-13: the 2.1.x excerpts are in, the February captures out.
    const rows = await statusJson([
      '--hours',
      String(200 * 24),
      '--now',
      NOW,
      '--projects-dir',
      realRoot,
    ]);
    expect(rows.map((r) => r.sessionId)).toEqual(['subagent-spawn-excerpt', 'session-excerpt']);
  });

  it('prints a table: session, project, state, relative last activity, open calls', async () => {
    const { code, stdout } = await status([
      '--hours',
      '100000',
      '--now',
      '2026-02-10T23:00:00Z',
      '--projects-dir',
      join(realRoot, 'test_fixtures_transcripts'),
    ]);
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^SESSION\s+PROJECT\s+STATE\s+LAST ACTIVITY\s+OPEN CALLS$/);
    expect(lines.slice(1).map((l) => l.split(/\s{2,}/))).toEqual([
      ['tool_heavy', '/home/marco/projects/spotter', 'interrupted', '13s ago', '-'],
      ['subagent', '/home/marco/projects/spotter', 'your_turn', '56m ago', '-'],
      ['short', '/home/marco/projects/spotter', 'interrupted', '1h ago', '-'],
    ]);
  });
});

describe('ccotel status on a live session', () => {
  const sid = '0b7c3a52-5d8e-4c61-9d0f-2f0a4e6b9c11';
  let root: string;

  beforeAll(() => {
    root = join(dir, 'live');
    mkdirSync(join(root, '-home-dev-app', sid, 'subagents'), { recursive: true });
    const at = (s: string) => `2026-11-01T12:${s}.000Z`;
    const env = {
      sessionId: sid,
      cwd: '/home/dev/app',
      gitBranch: 'main',
      version: '2.1.80',
      isSidechain: false,
    };
    const lines = [
      {
        type: 'user',
        uuid: 'p1',
        timestamp: at('00:00'),
        message: { role: 'user', content: 'Research the flaky test' },
        ...env,
      },
      {
        type: 'assistant',
        uuid: 'a1',
        timestamp: at('00:05'),
        message: {
          id: 'msg_1',
          model: 'claude-opus-4-6',
          role: 'assistant',
          stop_reason: null,
          content: [{ type: 'tool_use', id: 'toolu_T', name: 'Task', input: {} }],
        },
        ...env,
      },
    ];
    // The last line is still being written: it must not count.
    const partial =
      '{"type":"user","uuid":"r1","timestamp":"2026-11-01T12:59:00.000Z","message":{"role":"user","content":[{"type":"tool_re';
    writeFileSync(
      join(root, '-home-dev-app', `${sid}.jsonl`),
      `${lines.map((l) => JSON.stringify(l)).join('\n')}\n${partial}`,
    );
    // The sub-agent works in its own file: activity, never a hand-off.
    const agent = [
      {
        type: 'user',
        uuid: 's1',
        timestamp: at('00:06'),
        isSidechain: true,
        agentId: 'a9f',
        message: { role: 'user', content: 'Find it' },
      },
      {
        type: 'assistant',
        uuid: 's2',
        timestamp: at('40:00'),
        isSidechain: true,
        agentId: 'a9f',
        message: {
          id: 'msg_s',
          model: 'claude-opus-4-6',
          role: 'assistant',
          stop_reason: 'end_turn',
          content: [{ type: 'text', text: 'Found it.' }],
        },
      },
    ];
    writeFileSync(
      join(root, '-home-dev-app', sid, 'subagents', 'agent-a9f.jsonl'),
      `${agent.map((l) => JSON.stringify(l)).join('\n')}\n`,
    );
  });

  it('a parent waiting on a busy sub-agent stays working, with the Task call open', async () => {
    const [row] = await statusJson(['--now', '2026-11-01T12:45:00Z', '--projects-dir', root]);
    expect(row).toMatchObject({
      sessionId: sid,
      project: '/home/dev/app',
      state: 'working',
      stale: false,
      lastActivity: '2026-11-01T12:40:00.000Z',
      openToolCalls: [{ id: 'toolu_T', name: 'Task' }],
    });
  });

  it('goes unknown (stale) once nothing at all was written for --stale-minutes', async () => {
    const [row] = await statusJson([
      '--now',
      '2026-11-01T12:45:00Z',
      '--stale-minutes',
      '4',
      '--projects-dir',
      root,
    ]);
    expect(row).toMatchObject({
      state: 'unknown',
      stale: true,
      openToolCalls: [{ id: 'toolu_T', name: 'Task' }],
    });
    const table = await status([
      '--now',
      '2026-11-01T12:45:00Z',
      '--stale-minutes',
      '4',
      '--projects-dir',
      root,
    ]);
    expect(table.stdout).toContain('unknown (stale)');
    expect(table.stdout).toContain('Task');
  });

  it('lists nothing when no session had an event in the window', async () => {
    expect(await statusJson(['--now', '2026-11-03T12:45:00Z', '--projects-dir', root])).toEqual([]);
    const { stdout } = await status(['--now', '2026-11-03T12:45:00Z', '--projects-dir', root]);
    expect(stdout).toBe('No sessions active in the last 24 hours.\n');
  });
});

describe('ccotel status on a forked session', () => {
  const FORKED = 'fixtures/hand/forked-session';
  const parent = 'f1bc0f0c-e1a8-432e-be3b-2e77e0b93daf';
  const fork = 'f600084f-fd2d-4bb4-aad9-be80359961e5';
  const copyOnly = '0c0f0c0f-0000-4000-8000-000000000001';

  it('counts only a fork’s own events: its copied history is the parent’s', async () => {
    const project = join(dir, 'forked', '-home-dev-projects-rate-limiter');
    mkdirSync(project, { recursive: true });
    for (const id of [parent, fork])
      cpSync(join(FORKED, `${id}.jsonl`), join(project, `${id}.jsonl`));
    // A fork that has written nothing of its own yet: only the history it copied.
    const copied = readFileSync(join(FORKED, `${fork}.jsonl`), 'utf8')
      .split('\n')
      .filter((l) => l.includes('"forkedFrom"'));
    expect(copied).toHaveLength(6);
    writeFileSync(join(project, `${copyOnly}.jsonl`), `${copied.join('\n')}\n`);

    const rows = await statusJson([
      '--now',
      '2026-05-06T11:00:00Z',
      '--projects-dir',
      dirname(project),
    ]);
    expect(rows.map((r) => [r.sessionId, r.state, r.lastActivity, r.lastPromptAt])).toEqual([
      [fork, 'your_turn', '2026-05-06T10:05:12.930Z', '2026-05-06T10:05:00.000Z'],
      [parent, 'your_turn', '2026-05-06T10:00:08.330Z', '2026-05-06T10:00:00.000Z'],
    ]);
  });
});

describe('ccotel status arguments', () => {
  it('rejects a bad --hours and a stray argument (exit 2), a missing projects dir (exit 3)', async () => {
    const exitOf = (run: Promise<unknown>): Promise<number | null> =>
      run.then(
        () => 0,
        (err: unknown) => exitCodeOf(err),
      );
    expect(await exitOf(status(['--hours', 'soon']))).toBe(2);
    expect(await exitOf(status(['somewhere']))).toBe(2);
    const missing = status(['--projects-dir', join(dir, 'nope')]);
    await expect(missing).rejects.toBeInstanceOf(UserError);
    expect(await exitOf(missing)).toBe(3);
  });

  it('has help that does not advertise --now', async () => {
    const { stdout } = await status(['--help']);
    expect(stdout).toContain('--hours N');
    expect(stdout).not.toContain('--now');
  });
});
