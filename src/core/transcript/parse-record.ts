// One transcript line → one TranscriptRecord, or a reason it is not one.
// Pure: no I/O. Unknown record types and keys are ignored, wrong field types
// read as "missing" rather than failing the line.
import {
  MAX_KEPT_TEXT,
  type AgentReport,
  type CostState,
  type SessionInfo,
  type AssistantRecord,
  type ProgressRecord,
  type SystemRecord,
  type ToolResultBlock,
  type ToolUseBlock,
  type TranscriptRecord,
  type Usage,
  type UserRecord,
} from './records.js';
import { clipAtBoundary } from '../spans/clip.js';
import { SYNTHETIC_MODEL } from '../session/turn-lifecycle.js';
import { timestampMs } from './timestamp.js';
import { costStateOf, teammateMessageOf, workflowLaunchOf } from './parse-v22x.js';

export type ParseOutcome =
  | { kind: 'record'; record: TranscriptRecord }
  /**
   * Valid JSON of a type ccotel does not use (summary, file-history-snapshot, …).
   * `unknownType` names a type not in KNOWN_TYPES (format drift: reported, never
   * guessed at); `info` is what a session name or setting record says.
   */
  | { kind: 'ignored'; unknownType?: string; info?: SessionInfo; costState?: CostState }
  | { kind: 'malformed'; reason: string };

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
// Token counts beyond 2^53 are corrupt data: summed or priced they become Infinity, which OTLP/JSON cannot carry.
const num = (v: unknown): number | null =>
  typeof v === 'number' && Number.isFinite(v) && Math.abs(v) <= Number.MAX_SAFE_INTEGER ? v : null;
/**
 * Text kept per field. Module state set per parse call: parsing is synchronous,
 * and threading it through every helper would obscure the projection.
 */
let limit = MAX_KEPT_TEXT;
/** Whether texts only full content capture uses are kept (ParseOptions.keepTexts). */
let keepTexts = true;
const clip = (s: string): string => (s.length > limit ? detach(clipAtBoundary(s, limit)) : s);

/**
 * A copy of a string that holds no reference to the one it was cut from. V8
 * makes a slice a view of its parent: a short clipped text would keep a large
 * tool result alive for the whole session (docs/benchmarks.md). Flattening a
 * concatenation copies the characters out.
 */
function detach(s: string): string {
  return `${s} `.slice(0, -1);
}

/**
 * Values repeated on every line (session id, cwd, branch, version, model):
 * one string each rather than one per record. Bounded; values only, no I/O.
 * Each field first checks the value it last returned: a line's strings are
 * fresh from JSON.parse, and comparing with the last one is cheaper than
 * hashing it for the map (the same value line after line is the common case).
 */
const interned = new Map<string, string>();
const SLOT = {
  session: 0,
  cwd: 1,
  branch: 2,
  version: 3,
  model: 4,
  speed: 5,
  mode: 6,
  origin: 7,
  entrypoint: 8,
  kind: 9,
};
const lastInterned: (string | null)[] = Array.from({ length: 10 }, () => null);
function intern(v: unknown, slot: number): string | null {
  if (typeof v !== 'string') return null;
  const last = lastInterned[slot];
  if (last === v) return last;
  let known = interned.get(v);
  if (known === undefined) {
    if (interned.size >= 4096) interned.clear();
    interned.set(v, v);
    known = v;
  }
  lastInterned[slot] = known;
  return known;
}

/** Long strings inside tool inputs (Write contents, Edit strings) are clipped too. */
function clipInput(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return clip(value);
  if (typeof value !== 'object' || value === null) return value;
  // Deeper structure is cut off: a pathological input thousands of levels deep
  // would otherwise overflow the stack of every later JSON.stringify.
  if (depth >= 8)
    return Array.isArray(value) ? '[array nested too deep]' : '[object nested too deep]';
  if (Array.isArray(value)) return value.slice(0, 200).map((v) => clipInput(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = clipInput(v, depth + 1);
  return out;
}

/**
 * Whether clipInput would leave the value as it is: most tool inputs are
 * small, and are kept as parsed instead of copied. A `__proto__` key is
 * copied (the copy drops it), so that both paths give the same object.
 */
function withinLimits(value: unknown, depth: number): boolean {
  if (typeof value === 'string') return value.length <= limit;
  if (typeof value !== 'object' || value === null) return true;
  if (depth >= 8) return false;
  if (Array.isArray(value)) {
    if (value.length > 200) return false;
    for (const v of value) if (!withinLimits(v, depth + 1)) return false;
    return true;
  }
  const o = value as Json;
  for (const k in o) if (k === '__proto__' || !withinLimits(o[k], depth + 1)) return false;
  return true;
}

/** Latest time OTLP's unsigned 64-bit nanoseconds hold with room to spare (year 2255). */
const MAX_TIMESTAMP_MS = 9_000_000_000_000;

function parseTimestamp(v: unknown): number | null {
  if (typeof v !== 'string') return null;
  const ms = timestampMs(v);
  // Before 1970 or past OTLP's range a time cannot be sent: it reads as missing.
  return Number.isNaN(ms) || ms < 0 || ms > MAX_TIMESTAMP_MS ? null : ms;
}

/** Characters of the text textOf keeps, before it is clipped (the prompt's length). */
function textLengthOf(content: unknown): number | null {
  if (typeof content === 'string') return content.length;
  if (!Array.isArray(content)) return null;
  let length = -1;
  for (const block of content)
    if (isObject(block) && block.type === 'text' && typeof block.text === 'string')
      length += block.text.length + 1;
  return length < 0 ? null : length;
}

function textOf(content: unknown): string | null {
  if (typeof content === 'string') return clip(content);
  if (!Array.isArray(content)) return null;
  const parts: string[] = [];
  for (const block of content) {
    if (isObject(block) && block.type === 'text' && typeof block.text === 'string')
      parts.push(block.text);
  }
  return parts.length > 0 ? clip(parts.join('\n')) : null;
}

/** Tool result content is a string or an array of text/image/tool_reference parts. */
function resultText(content: unknown): string {
  if (typeof content === 'string') return clip(content);
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const part of content) {
    if (!isObject(part)) continue;
    if (part.type === 'text' && typeof part.text === 'string') parts.push(part.text);
    else if (part.type === 'image') parts.push('[image]');
    else if (part.type === 'tool_reference' && typeof part.tool_name === 'string')
      parts.push(`[tool ${part.tool_name}]`);
  }
  return clip(parts.join('\n'));
}

function parseUsage(v: unknown): Usage | null {
  if (!isObject(v)) return null;
  const creation = isObject(v.cache_creation) ? v.cache_creation : {};
  const details = isObject(v.output_tokens_details) ? v.output_tokens_details : {};
  const server = isObject(v.server_tool_use) ? v.server_tool_use : {};
  const usage: Usage = {
    input: num(v.input_tokens) ?? 0,
    output: num(v.output_tokens) ?? 0,
    cacheRead: num(v.cache_read_input_tokens) ?? 0,
    cacheWrite: num(v.cache_creation_input_tokens) ?? 0,
    cacheWrite1h: num(creation.ephemeral_1h_input_tokens) ?? 0,
  };
  // Written only when present, so older lines keep the four-field shape.
  const speed = intern(v.speed, SLOT.speed);
  if (speed !== null) usage.speed = speed;
  const thinking = num(details.thinking_tokens);
  if (thinking !== null) usage.thinkingTokens = thinking;
  const searches = num(server.web_search_requests);
  if (searches !== null) usage.webSearchRequests = searches;
  const fetches = num(server.web_fetch_requests);
  if (fetches !== null) usage.webFetchRequests = fetches;
  return usage;
}

function agentReportOf(tur: Json): AgentReport | null {
  const totalTokens = num(tur.totalTokens);
  const toolUseCount = num(tur.totalToolUseCount);
  const durationMs = num(tur.totalDurationMs);
  if (totalTokens === null && toolUseCount === null && durationMs === null) return null;
  return {
    agentId: str(tur.agentId),
    totalTokens,
    toolUseCount,
    durationMs,
    usage: parseUsage(tur.usage),
  };
}

/**
 * The envelope every chain record carries. Its fields are written out in each
 * record's literal (the BASE_FIELDS comment marks them): a literal built in one
 * go is several times cheaper than spreading a base object into it.
 */
const forkedFrom = (o: Json): string | null => str(fieldOf(fieldOf(o, 'forkedFrom'), 'sessionId'));

/**
 * `v[key]` when v is an object (an array has neither key), else undefined. One
 * read for both steps of forkedFrom: a record seldom has a `forkedFrom` object,
 * and a read of its own would have no feedback until the first forked line,
 * which then threw away the optimised code of the record's parser (forkedFrom
 * is inlined there). This read has seen records of many shapes before that
 * line and is compiled as a generic one. A typeof test rather than isObject: fewer calls to inline into every parser.
 */
const fieldOf = (v: unknown, key: string): unknown =>
  typeof v === 'object' && v !== null ? (v as Json)[key] : undefined;

const PEER_NAME = /<cross-session-message\b[^>]*\bfrom-name="([^"]*)"/;

const REJECTION = /user (doesn't want to proceed|rejected tool use)/i;
const NOTIFICATION = /^\s*<task-notification>[\s\S]*?<tool-use-id>([^<]+)<\/tool-use-id>/;
const NOTIFIED_TASK = /^\s*<task-notification>[\s\S]*?<task-id>([^<]+)<\/task-id>/;
const FORK_MARKER =
  /<local-command-stdout>\s*⑂ forked (.+?) \(([0-9a-f]{4})\)\s*<\/local-command-stdout>/;

function parseUser(o: Json): UserRecord {
  const message = isObject(o.message) ? o.message : {};
  const content = message.content;
  const toolResults: ToolResultBlock[] = [];
  if (Array.isArray(content)) {
    for (const block of content) {
      if (
        isObject(block) &&
        block.type === 'tool_result' &&
        typeof block.tool_use_id === 'string'
      ) {
        toolResults.push({
          toolUseId: block.tool_use_id,
          isError: block.is_error === true,
          text: resultText(block.content),
        });
      }
    }
  }
  const tur = o.toolUseResult;
  const resultAgentId = isObject(tur) ? str(tur.agentId) : null;
  const agentReport = isObject(tur) ? agentReportOf(tur) : null;
  const rejectedByString = typeof tur === 'string' && REJECTION.test(tur);
  const rejectedByText = toolResults.some((r) => r.isError && REJECTION.test(r.text));
  // Read for the rejection above; kept only for content capture (see ParseOptions).
  if (!keepTexts) for (const r of toolResults) r.text = '';
  const text = toolResults.length > 0 ? null : textOf(content);
  const origin = isObject(o.origin) ? str(o.origin.kind) : null;
  return {
    type: 'user',
    // BASE_FIELDS
    uuid: str(o.uuid),
    parentUuid: str(o.parentUuid),
    timestamp: parseTimestamp(o.timestamp),
    sessionId: intern(o.sessionId, SLOT.session),
    isSidechain: o.isSidechain === true,
    agentId: str(o.agentId),
    cwd: intern(o.cwd, SLOT.cwd),
    gitBranch: intern(o.gitBranch, SLOT.branch),
    version: intern(o.version, SLOT.version),
    forkedFromSessionId: forkedFrom(o),
    promptId: str(o.promptId),
    textLength: text === null ? null : textLengthOf(content),
    entrypoint: intern(o.entrypoint, SLOT.entrypoint),
    permissionMode: intern(o.permissionMode, SLOT.mode),
    originKind: intern(origin, SLOT.origin),
    peerName: origin === 'peer' && text !== null ? (PEER_NAME.exec(text)?.[1] ?? null) : null,
    isMeta: o.isMeta === true,
    isCompactSummary: o.isCompactSummary === true,
    text,
    toolResults,
    resultAgentId,
    agentReport,
    resultAsyncLaunched: isObject(tur) && tur.status === 'async_launched',
    rejected: rejectedByString || rejectedByText,
    notifiesToolUseId: text === null ? null : (NOTIFICATION.exec(text)?.[1]?.trim() ?? null),
    notifiesTaskId: text === null ? null : (NOTIFIED_TASK.exec(text)?.[1]?.trim() ?? null),
    workflowLaunch: workflowLaunchOf(tur),
    teammate: teammateMessageOf(text),
    sessionKind: intern(o.sessionKind, SLOT.kind),
  };
}

const toolInput = (input: Json): Record<string, unknown> =>
  withinLimits(input, 0) ? input : (clipInput(input) as Record<string, unknown>);

function parseAssistant(o: Json): AssistantRecord {
  const message = isObject(o.message) ? o.message : {};
  const model = intern(message.model, SLOT.model);
  const isApiError = o.isApiErrorMessage === true;
  const synthetic = isApiError || model === SYNTHETIC_MODEL;
  const toolUses: ToolUseBlock[] = [];
  let hasText = false;
  if (Array.isArray(message.content)) {
    for (const block of message.content) {
      if (!isObject(block)) continue;
      if (block.type === 'tool_use' && typeof block.id === 'string') {
        toolUses.push({
          id: block.id,
          name: str(block.name) ?? 'unknown',
          input: isObject(block.input) ? toolInput(block.input) : {},
        });
      } else if (block.type === 'text') hasText = true;
    }
  }
  return {
    type: 'assistant',
    // BASE_FIELDS
    uuid: str(o.uuid),
    parentUuid: str(o.parentUuid),
    timestamp: parseTimestamp(o.timestamp),
    sessionId: intern(o.sessionId, SLOT.session),
    isSidechain: o.isSidechain === true,
    agentId: str(o.agentId),
    cwd: intern(o.cwd, SLOT.cwd),
    gitBranch: intern(o.gitBranch, SLOT.branch),
    version: intern(o.version, SLOT.version),
    forkedFromSessionId: forkedFrom(o),
    messageId: str(message.id),
    requestId: str(o.requestId),
    model,
    stopReason: str(message.stop_reason),
    usage: synthetic ? null : parseUsage(message.usage),
    isApiError,
    errorType: isApiError ? (str(o.error) ?? 'api_error') : null,
    toolUses,
    hasText,
    text: keepTexts ? textOf(message.content) : null,
  };
}

function parseSystem(o: Json): SystemRecord {
  const subtype = str(o.subtype);
  const marker =
    subtype === 'local_command' && typeof o.content === 'string'
      ? FORK_MARKER.exec(o.content)
      : null;
  const fork =
    marker?.[1] !== undefined && marker[2] !== undefined
      ? { name: clip(marker[1]), idSuffix: marker[2] }
      : null;
  return {
    type: 'system',
    // BASE_FIELDS
    uuid: str(o.uuid),
    parentUuid: str(o.parentUuid),
    timestamp: parseTimestamp(o.timestamp),
    sessionId: intern(o.sessionId, SLOT.session),
    isSidechain: o.isSidechain === true,
    agentId: str(o.agentId),
    cwd: intern(o.cwd, SLOT.cwd),
    gitBranch: intern(o.gitBranch, SLOT.branch),
    version: intern(o.version, SLOT.version),
    forkedFromSessionId: forkedFrom(o),
    subtype,
    durationMs: num(o.durationMs),
    fork,
  };
}

function parseEmbedded(
  o: Json,
  outer: Json,
  agentId: string | null,
  sessionId: string | null,
): UserRecord | AssistantRecord | null {
  const inner = o.message;
  if (!isObject(inner) || agentId === null) return null;
  // The copy lacks the envelope: it inherits the sub-agent's identity and the
  // progress line's context (cwd makes its labels relative like any other).
  const envelope: Json = {
    cwd: outer.cwd,
    gitBranch: outer.gitBranch,
    version: outer.version,
    ...inner,
    isSidechain: true,
    agentId,
    sessionId: inner.sessionId ?? sessionId,
  };
  if (inner.type === 'user') return parseUser(envelope);
  if (inner.type === 'assistant') return parseAssistant(envelope);
  return null;
}

function parseProgress(o: Json): ProgressRecord {
  const data = isObject(o.data) ? o.data : {};
  const dataType = str(data.type);
  const progressAgentId = str(data.agentId);
  return {
    type: 'progress',
    // BASE_FIELDS
    uuid: str(o.uuid),
    parentUuid: str(o.parentUuid),
    timestamp: parseTimestamp(o.timestamp),
    sessionId: intern(o.sessionId, SLOT.session),
    isSidechain: o.isSidechain === true,
    agentId: str(o.agentId),
    cwd: intern(o.cwd, SLOT.cwd),
    gitBranch: intern(o.gitBranch, SLOT.branch),
    version: intern(o.version, SLOT.version),
    forkedFromSessionId: forkedFrom(o),
    dataType,
    progressAgentId,
    parentToolUseId: str(o.parentToolUseID),
    embedded:
      dataType === 'agent_progress'
        ? parseEmbedded(data, o, progressAgentId, str(o.sessionId))
        : null,
  };
}

/**
 * V8 quotes the offending input in its message; a warning line must stay one
 * short, printable line whatever bytes the transcript holds.
 */
function jsonErrorReason(err: Error): string {
  const message = err.message
    .replace(/,? ".*?"(\.\.\.)? is not valid JSON$/s, '')
    .replace(/[^\x20-\x7e]/g, '?');
  return message.length > 120 ? `${message.slice(0, 119)}…` : message;
}

export interface ParseOptions {
  /** Characters kept per text field and per string inside tool inputs. */
  textLimit?: number;
  /**
   * Keep tool results' text and assistant text (default true). Only full
   * content capture and `show` use them; spans in labels or none mode read
   * neither, and a long session's records are a third smaller without them.
   */
  keepTexts?: boolean;
}

/**
 * Record types Claude Code is known to write that ccotel reads no further.
 * Any other type is reported by name.
 */
export const KNOWN_TYPES: ReadonlySet<string> = new Set([
  'summary',
  'file-history-snapshot',
  'file-history-delta',
  'queue-operation',
  'attachment',
  'last-prompt',
  'agent-color',
  'agent-setting',
  'tag',
  'bridge-session',
  'atis-latch',
  'frame-link',
  'fork-context-ref',
  'result',
  'turn_end',
  'custom-title',
  'ai-title',
  'agent-name',
  'pr-link',
  'permission-mode',
  'mode',
  'cost-state',
]);

/** What a session name or setting record says; null for other types. */
function sessionInfoOf(o: Json): SessionInfo | null {
  const s = (v: unknown): string | undefined => (typeof v === 'string' ? clip(v) : undefined);
  const info: SessionInfo = {};
  switch (o.type) {
    case 'custom-title':
      info.customTitle = s(o.customTitle);
      break;
    case 'ai-title':
      info.aiTitle = s(o.aiTitle);
      break;
    case 'agent-name':
      info.agentName = s(o.agentName);
      break;
    case 'permission-mode':
      info.permissionMode = s(o.permissionMode);
      break;
    case 'mode':
      info.mode = s(o.mode);
      break;
    case 'pr-link':
      info.prLinks = [
        {
          number: num(o.prNumber),
          url: str(o.prUrl) === null ? null : clip(o.prUrl as string),
          repository: str(o.prRepository),
        },
      ];
      break;
    default:
      return null;
  }
  for (const k of Object.keys(info) as (keyof SessionInfo)[])
    if (info[k] === undefined) delete info[k];
  return info;
}

function ignoredOutcome(o: Json): ParseOutcome {
  const type = typeof o.type === 'string' ? o.type : null;
  if (type === null || !KNOWN_TYPES.has(type))
    return { kind: 'ignored', unknownType: type === null ? '(no type)' : clip(type).slice(0, 60) };
  if (type === 'cost-state') return { kind: 'ignored', costState: costStateOf(o) };
  const info = sessionInfoOf(o);
  return info === null ? { kind: 'ignored' } : { kind: 'ignored', info };
}

/** Parse one complete line (without its newline). Blank lines are the caller's to skip. */
export function parseRecord(line: string, options: ParseOptions = {}): ParseOutcome {
  limit = options.textLimit ?? MAX_KEPT_TEXT;
  keepTexts = options.keepTexts ?? true;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (err) {
    return { kind: 'malformed', reason: `invalid JSON: ${jsonErrorReason(err as Error)}` };
  }
  if (!isObject(value)) return { kind: 'malformed', reason: 'not a JSON object' };
  switch (value.type) {
    case 'user':
      return { kind: 'record', record: parseUser(value) };
    case 'assistant':
      return { kind: 'record', record: parseAssistant(value) };
    case 'system':
      return { kind: 'record', record: parseSystem(value) };
    case 'progress':
      return { kind: 'record', record: parseProgress(value) };
    default:
      return ignoredOutcome(value);
  }
}
