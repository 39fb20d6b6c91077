// A Claude Code session whose every free-text place carries one payload: the
// working directory, the git branch, both titles, the agent name, the PR link,
// the prompt, a Bash call's command and result, and a sub-agent's description.
// Tests write it into a temp projects dir and run the built binary on it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Terminal controls: OSC title, clear screen, BEL, BS, C1 CSI, DEL, a bidi override. */
export const TERMINAL_PAYLOAD =
  '\u001b]0;pwned\u0007\u001b[2J\u0008\u009b31m\u007f\u202eevil\u2066x\u2069';
export const HTML_PAYLOAD =
  '<script>window.__xss=1</script><img src=x onerror="window.__xss=2"><a href="javascript:window.__xss=3">a</a>';
export const URL_PAYLOAD = 'javascript:window.__xss=4';
export const PAYLOADS = { terminal: TERMINAL_PAYLOAD, html: HTML_PAYLOAD, url: URL_PAYLOAD };

/** What a terminal may act on or reorders by; newline excepted (the line ends). */
export const UNSAFE_FOR_TERMINAL =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

export const HOSTILE_SESSION_ID = '5e55a0b1-0000-4000-8000-00000000dead';

/** The session's lines, `payload` in each field that holds text. */
export function hostileLines(
  payload: string,
  now = Date.parse('2026-11-20T10:00:00.000Z'),
): string[] {
  const at = (s: number) => new Date(now + s * 1000).toISOString();
  const base = {
    sessionId: HOSTILE_SESSION_ID,
    cwd: `/home/dev/${payload}`,
    gitBranch: `feature/${payload}`,
    version: '2.1.222',
    userType: 'external',
    entrypoint: 'cli',
    isSidechain: false,
  };
  const usage = { input_tokens: 10, output_tokens: 20, cache_read_input_tokens: 100 };
  const assistant = (
    uuid: string,
    parent: string,
    s: number,
    content: unknown[],
    stop: string,
  ) => ({
    ...base,
    type: 'assistant',
    uuid,
    parentUuid: parent,
    timestamp: at(s),
    requestId: `req_${uuid}`,
    message: {
      model: 'claude-opus-4-6',
      id: `msg_${uuid}`,
      type: 'message',
      role: 'assistant',
      content,
      stop_reason: stop,
      usage,
    },
  });
  const result = (uuid: string, parent: string, s: number, id: string, text: string) => ({
    ...base,
    type: 'user',
    uuid,
    parentUuid: parent,
    timestamp: at(s),
    message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: text }] },
  });
  const records: unknown[] = [
    { type: 'custom-title', customTitle: `Title ${payload}`, sessionId: HOSTILE_SESSION_ID },
    { type: 'ai-title', aiTitle: `AI ${payload}`, sessionId: HOSTILE_SESSION_ID },
    { type: 'agent-name', agentName: `agent ${payload}`, sessionId: HOSTILE_SESSION_ID },
    {
      ...base,
      type: 'user',
      uuid: 'u1',
      parentUuid: null,
      timestamp: at(0),
      promptId: 'p1',
      permissionMode: 'default',
      message: { role: 'user', content: `Prompt ${payload}\nsecond line` },
    },
    assistant(
      'a1',
      'u1',
      2,
      [{ type: 'tool_use', id: 'toolu_bash', name: 'Bash', input: { command: `echo ${payload}` } }],
      'tool_use',
    ),
    result('r1', 'a1', 4, 'toolu_bash', `out ${payload}`),
    assistant(
      'a2',
      'r1',
      6,
      [
        {
          type: 'tool_use',
          id: 'toolu_agent',
          name: 'Agent',
          input: {
            description: `Agent ${payload}`,
            prompt: `Do ${payload}`,
            subagent_type: `helper ${payload}`,
          },
        },
      ],
      'tool_use',
    ),
    result('r2', 'a2', 20, 'toolu_agent', `done ${payload}`),
    assistant('a3', 'r2', 22, [{ type: 'text', text: `Answer ${payload}` }], 'end_turn'),
    {
      type: 'pr-link',
      prNumber: 7,
      prUrl: payload.startsWith('javascript:') ? payload : `https://example.com/${payload}`,
      prRepository: `example/${payload}`,
      timestamp: at(23),
      sessionId: HOSTILE_SESSION_ID,
    },
    // A line that is no JSON, quoting the payload: the warnings print it.
    `not json ${payload}`,
  ];
  return records.map((r) => (typeof r === 'string' ? r : JSON.stringify(r)));
}

/**
 * Writes the session as `<root>/<project dir>/<id>.jsonl`, the project dir
 * named after the payload too (a dir name may hold any byte but `/` and NUL);
 * returns the transcript's path.
 */
export function writeHostileSession(root: string, payload: string, now?: number): string {
  const project = join(root, `-home-dev-${payload.replace(/\//g, '-')}`);
  mkdirSync(project, { recursive: true });
  const file = join(project, `${HOSTILE_SESSION_ID}.jsonl`);
  writeFileSync(file, `${hostileLines(payload, now).join('\n')}\n`);
  return file;
}
