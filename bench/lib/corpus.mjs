// Benchmark corpora made from the repository's fixtures: N copies of every
// fixture session with every id rewritten (session, uuid, message, request,
// tool_use and agent ids, sub-agent file names included) and timestamps
// shifted, spread over project dirs, up to a target size. Rewriting is textual
// and same-length, so a copy has exactly the bytes, lines and structure of its
// template, and ids stay consistent across a session's main file, sub-agent
// files and meta sidecars. Deterministic: the same seed gives the same bytes.
import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatSize } from './args.mjs';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const FIXTURES = join(ROOT, 'fixtures');
export const CORPUS_ROOT = join(ROOT, 'bench', '.corpus');
/** Bumped when the generator's output changes, so cached corpora are rebuilt. */
const GENERATOR_VERSION = 1;

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const PREFIXED = '(?:msg|req|toolu|srvtoolu)_[A-Za-z0-9]{8,}';
const TIMESTAMP = /\b(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?=(?:\.\d+)?Z)/g;
const LINE_TIMESTAMP = /"timestamp":"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.\d+)?Z"/g;
const SESSION_ID = /"sessionId":"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})"/;
const AGENT_FILE = /^agent-(.+)\.(jsonl|meta\.json)$/;

function walk(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...walk(path));
    else out.push(path);
  }
  return out;
}

const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Every id the generator rewrites: UUIDs, msg_/req_/toolu_ ids, and the given agent ids. */
export function idPattern(agentIds = []) {
  const ids = [...agentIds].sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
  const agents =
    ids.length === 0 ? '' : `|(?<![A-Za-z0-9_])(?:${ids.map(escapeRe).join('|')})(?![A-Za-z0-9_])`;
  return new RegExp(`${UUID}|\\b${PREFIXED}${agents}`, 'g');
}

/**
 * The fixture sessions as groups of files that must stay together in one
 * project dir (a session with its sub-agent files, a case dir with flat v2
 * agent files, a fork and its source).
 */
export function loadTemplates(fixtures = FIXTURES) {
  const groups = [];
  const layoutSessions = new Set();
  for (const project of readdirSync(join(fixtures, 'real-layout')).sort()) {
    const dir = join(fixtures, 'real-layout', project);
    if (!statSync(dir).isDirectory()) continue;
    const files = walk(dir).filter((f) => f.endsWith('.jsonl') || AGENT_FILE.test(basename(f)));
    for (const f of files) if (dirname(f) === dir) layoutSessions.add(basename(f, '.jsonl'));
    groups.push({
      name: `real-layout/${project}`,
      files: files.map((f) => ({ rel: relative(dir, f), text: readFileSync(f, 'utf8') })),
    });
  }
  for (const name of readdirSync(join(fixtures, 'real')).sort()) {
    // Sub-agent files of real captures are used through real-layout, where they sit in their session dir.
    if (!name.endsWith('.jsonl') || name.includes('__subagents__')) continue;
    const text = readFileSync(join(fixtures, 'real', name), 'utf8');
    const sessionId =
      SESSION_ID.exec(text)?.[1] ?? uuidOf(createHash('sha256').update(name).digest());
    if (layoutSessions.has(sessionId)) continue;
    groups.push({ name: `real/${name}`, files: [{ rel: `${sessionId}.jsonl`, text }] });
  }
  for (const kase of readdirSync(join(fixtures, 'hand')).sort()) {
    const dir = join(fixtures, 'hand', kase);
    if (!statSync(dir).isDirectory()) continue;
    const files = walk(dir).filter((f) => f.endsWith('.jsonl') || AGENT_FILE.test(basename(f)));
    groups.push({
      name: `hand/${kase}`,
      files: files.map((f) => ({ rel: relative(dir, f), text: readFileSync(f, 'utf8') })),
    });
  }
  const agentIds = new Set();
  for (const g of groups) {
    for (const f of g.files) {
      const fromName = AGENT_FILE.exec(basename(f.rel))?.[1];
      if (fromName !== undefined) agentIds.add(fromName);
      for (const m of f.text.matchAll(/"(?:agentId|parentAgentId)":"([A-Za-z0-9_-]+)"/g))
        agentIds.add(m[1]);
    }
  }
  const mainFiles = groups.flatMap((g) =>
    g.files.filter((f) => !f.rel.includes('/') && !AGENT_FILE.test(f.rel)).map((f) => f.rel),
  );
  if (new Set(mainFiles).size !== mainFiles.length)
    throw new Error('fixture sessions share a session id: copies would collide');
  const bytes = groups.reduce(
    (n, g) => n + g.files.reduce((m, f) => m + Buffer.byteLength(f.text), 0),
    0,
  );
  return { groups, idPattern: idPattern(agentIds), bytes };
}

function uuidOf(h) {
  const hex = h.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${'89ab'[h[16] & 3]}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function charsOf(h, n, alphabet) {
  let out = '';
  let block = h;
  let i = 0;
  while (out.length < n) {
    if (i === block.length) {
      block = createHash('sha256').update(block).digest();
      i = 0;
    }
    out += alphabet[block[i] % alphabet.length];
    i += 1;
  }
  return out;
}

/** Same shape, same length, new value: keeps prefixes that carry meaning (acompact-, aprompt_suggestion-, msg_01). */
function rewriteId(id, h) {
  if (id.length === 36 && id[8] === '-') return uuidOf(h);
  const prefixed = /^(msg_|req_|toolu_|srvtoolu_)(01)?(.*)$/.exec(id);
  if (prefixed !== null)
    return prefixed[1] + (prefixed[2] ?? '') + charsOf(h, prefixed[3].length, BASE62);
  const separated = /^(.*[-_])([0-9a-f]+)$/.exec(id);
  if (separated !== null) return separated[1] + charsOf(h, separated[2].length, '0123456789abcdef');
  if (/^a[0-9a-f]+$/.test(id)) return `a${charsOf(h, id.length - 1, '0123456789abcdef')}`;
  if (/^[0-9a-f]+$/.test(id)) return charsOf(h, id.length, '0123456789abcdef');
  return charsOf(h, id.length, BASE62);
}

/**
 * A text rewriter for one copy: every id to a fresh one (the same one in every
 * file of the copy), every timestamp moved by `shiftSeconds`. `fixed` pins ids
 * (the single-transcript generator keeps one session id across repetitions).
 */
export function makeRewriter(templates, seed, copy, shiftSeconds, fixed = new Map()) {
  const cache = new Map(fixed);
  const mapId = (id) => {
    let out = cache.get(id);
    if (out === undefined) {
      out = rewriteId(id, createHash('sha256').update(`${seed}\0${copy}\0${id}`).digest());
      cache.set(id, out);
    }
    return out;
  };
  const shiftCache = new Map();
  const shift = (base) => {
    let out = shiftCache.get(base);
    if (out === undefined) {
      out = new Date(Date.parse(`${base}Z`) + shiftSeconds * 1000).toISOString().slice(0, 19);
      shiftCache.set(base, out);
    }
    return out;
  };
  return (text) => text.replace(templates.idPattern, mapId).replace(TIMESTAMP, shift);
}

/**
 * A template's text with progress lines added until they are `share` of its
 * lines: the bench corpus has few (the fixtures are short sessions), real
 * 2.1.x transcripts ~50-70 %. Each is written after a user or assistant line,
 * as Claude Code writes them while a tool runs: that line's envelope (session,
 * cwd, branch, version, agent), its time, a fresh uuid, and the line's tool id;
 * alternately a `hook_progress` and a `bash_progress` with a few lines of
 * output. Deterministic (ids from a hash of the file and position), so the
 * copies stay reproducible; share 0 returns the text unchanged.
 */
export function withProgressShare(text, share, name) {
  if (!(share > 0)) return text;
  if (share >= 1) throw new Error('corpus generator: --progress-share must be below 1');
  const lines = text.split('\n');
  const anchors = [];
  let progress = 0;
  let records = 0;
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    records += 1;
    let o;
    try {
      o = JSON.parse(line);
    } catch {
      return;
    }
    if (o === null || typeof o !== 'object') return;
    if (o.type === 'progress') progress += 1;
    if ((o.type === 'user' || o.type === 'assistant') && typeof o.uuid === 'string')
      if (typeof o.timestamp === 'string' && o.forkedFrom === undefined) anchors.push([i, o]);
  });
  const wanted = Math.max(0, Math.round((share * records - progress) / (1 - share)));
  if (anchors.length === 0 || wanted === 0) return text;
  const added = new Map();
  let made = 0;
  anchors.forEach(([i, o], k) => {
    const upTo = Math.floor(((k + 1) * wanted) / anchors.length);
    const out = [];
    for (; made < upTo; made += 1) out.push(progressLine(o, `${name}\0${made}`, made));
    if (out.length > 0) added.set(i, out);
  });
  return lines.flatMap((line, i) => [line, ...(added.get(i) ?? [])]).join('\n');
}

const OUTPUT_LINES = [
  'Compiling 14 modules',
  'src/core/records.ts ok',
  'tests: 212 passed',
  'done',
];

function progressLine(anchor, key, n) {
  const h = createHash('sha256').update(key).digest();
  const uuid = uuidOf(h);
  const content = anchor.message?.content;
  const block = Array.isArray(content)
    ? content.find((b) => typeof b?.id === 'string' || typeof b?.tool_use_id === 'string')
    : undefined;
  const toolId = block?.id ?? block?.tool_use_id ?? `toolu_01${charsOf(h, 22, BASE62)}`;
  const data =
    n % 2 === 0
      ? {
          type: 'hook_progress',
          hookEvent: 'PostToolUse',
          hookName: 'PostToolUse:Bash',
          command: 'callback',
        }
      : {
          type: 'bash_progress',
          output: OUTPUT_LINES.slice(0, 1 + (n % 4)).join('\n'),
          fullOutput: OUTPUT_LINES.join('\n'),
          elapsedTimeSeconds: 1 + (n % 9),
          totalLines: 4,
          totalBytes: 64,
        };
  return JSON.stringify({
    parentUuid: anchor.uuid,
    isSidechain: anchor.isSidechain === true,
    ...(typeof anchor.agentId === 'string' ? { agentId: anchor.agentId } : {}),
    userType: 'external',
    cwd: anchor.cwd,
    sessionId: anchor.sessionId,
    version: anchor.version,
    gitBranch: anchor.gitBranch,
    type: 'progress',
    data,
    parentToolUseID: toolId,
    toolUseID: data.type === 'bash_progress' ? `bash-progress-${n}` : toolId,
    timestamp: anchor.timestamp,
    uuid,
  });
}

const seedHash = (seed, what) =>
  createHash('sha256').update(`${seed}\0${what}`).digest().readUInt32BE(0);

const countLines = (text) => {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n += 1;
  return n;
};

/**
 * Writes copies of every fixture session under `<out>/projects/` until `size`
 * bytes (or `maxFiles` transcript files). `only` keeps the groups whose name
 * starts with one of its prefixes ('hand/', 'real-layout/', 'real/').
 */
export function generateCorpus({
  size = Infinity,
  maxFiles = Infinity,
  seed = 1,
  out,
  projects = 20,
  only = null,
  rewrite: rewriting = true,
  progressShare = 0,
  templates = loadTemplates(),
}) {
  if (only !== null)
    templates = {
      ...templates,
      groups: templates.groups.filter((g) => only.some((p) => g.name.startsWith(p))),
    };
  if (progressShare > 0)
    templates = {
      ...templates,
      groups: templates.groups.map((g) => ({
        ...g,
        files: g.files.map((f) =>
          f.rel.endsWith('.jsonl')
            ? { ...f, text: withProgressShare(f.text, progressShare, `${g.name}/${f.rel}`) }
            : f,
        ),
      })),
    };
  if (!Number.isFinite(size) && !Number.isFinite(maxFiles))
    throw new Error('corpus generator: give a size or a file count');
  rmSync(out, { recursive: true, force: true });
  const projectsDir = join(out, 'projects');
  const stats = { bytes: 0, files: 0, jsonlFiles: 0, lines: 0, sessions: 0, copies: 0 };
  const usedProjects = new Set();
  const made = new Set();
  for (let copy = 0; stats.bytes < size && stats.jsonlFiles < maxFiles; copy += 1) {
    // Copies lie a quarter day apart, plus up to an hour of seeded jitter; whole seconds keep sub-second digits.
    const shift = copy * 21_600 + (seedHash(seed, `shift${copy}`) % 3600);
    // rewrite: false lays the fixtures out unchanged (a reference to check copies against).
    const rewrite = rewriting ? makeRewriter(templates, seed, copy, shift) : (text) => text;
    templates.groups.forEach((group, g) => {
      if (stats.jsonlFiles >= maxFiles) return;
      const project = `-bench-project-${String((copy + g) % projects).padStart(3, '0')}`;
      usedProjects.add(project);
      for (const file of group.files) {
        const path = join(projectsDir, project, rewrite(file.rel));
        if (made.has(path)) throw new Error(`corpus generator: two files map to ${path}`);
        made.add(path);
        const text = rewrite(file.text);
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, text);
        const bytes = Buffer.byteLength(text);
        stats.bytes += bytes;
        stats.files += 1;
        if (path.endsWith('.jsonl')) {
          stats.jsonlFiles += 1;
          stats.lines += countLines(text);
          if (dirname(path) === join(projectsDir, project) && !basename(path).startsWith('agent-'))
            stats.sessions += 1;
        }
      }
    });
    stats.copies += 1;
  }
  const manifest = {
    kind: 'corpus',
    generator: GENERATOR_VERSION,
    seed,
    rewritten: rewriting,
    targetBytes: Number.isFinite(size) ? size : null,
    maxFiles: Number.isFinite(maxFiles) ? maxFiles : null,
    only,
    // Written only when set: the default corpus keeps its bytes, manifest included.
    ...(progressShare > 0 ? { progressShare } : {}),
    projects: usedProjects.size,
    ...stats,
  };
  writeFileSync(join(out, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

function readManifest(dir) {
  try {
    return JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
  } catch {
    return null;
  }
}

/** Dir name suffix of a corpus with added progress lines: `-progress50` for 0.5. */
export const progressSuffix = (share) => (share > 0 ? `-progress${Math.round(share * 100)}` : '');

/** The corpus for (size, seed, progress share), generated unless an identical one is already there. */
export function ensureCorpus({
  size,
  seed = 1,
  progressShare = 0,
  root = CORPUS_ROOT,
  log = () => undefined,
}) {
  const dir = join(root, `corpus-${formatSize(size)}-seed${seed}${progressSuffix(progressShare)}`);
  let manifest = readManifest(dir);
  if (
    manifest === null ||
    manifest.generator !== GENERATOR_VERSION ||
    manifest.targetBytes !== size ||
    manifest.seed !== seed ||
    (manifest.progressShare ?? 0) !== progressShare
  ) {
    log(`generating ${formatSize(size)} corpus (seed ${seed}) in ${relative(ROOT, dir)} …`);
    manifest = generateCorpus({ size, seed, progressShare, out: dir });
  }
  return { dir, projectsDir: join(dir, 'projects'), manifest };
}

/**
 * One session file (`<dir>/<sessionId>.jsonl`) of `size` bytes: the real main-file transcripts repeated,
 * every id but the session id rewritten per repetition, each repetition's
 * timeline starting after the previous one ended. Written in chunks: never
 * held whole.
 */
export function generateSingleTranscript({ size, seed = 1, dir, templates = loadTemplates() }) {
  const sources = templates.groups.filter((g) => g.name.startsWith('real/')).map((g) => g.files[0]);
  const sessionIds = new Set();
  for (const s of sources)
    for (const m of s.text.matchAll(/"sessionId":"([0-9a-f-]{36})"/g)) sessionIds.add(m[1]);
  const sessionId = uuidOf(createHash('sha256').update(`${seed}\0single-session`).digest());
  const fixed = new Map([...sessionIds].map((id) => [id, sessionId]));
  const spans = sources.map((s) => {
    // The lines' own times only: a date inside a tool result (a 2023 `createdAt`
    // in a file read) would stretch every repetition's timeline by years, and
    // after a few hundred repetitions run it past what a timestamp may hold.
    const times = [...s.text.matchAll(LINE_TIMESTAMP)].map((m) => Date.parse(`${m[1]}Z`));
    return times.length === 0
      ? { min: 0, max: 0 }
      : { min: Math.min(...times), max: Math.max(...times) };
  });
  const out = join(dir, `${sessionId}.jsonl`);
  mkdirSync(dir, { recursive: true });
  const fd = openSync(out, 'w');
  let bytes = 0;
  let lines = 0;
  let cursor = Date.parse('2026-01-05T09:00:00Z');
  try {
    for (let rep = 0; bytes < size; rep += 1) {
      const i = rep % sources.length;
      const source = sources[i];
      const shiftSeconds = Math.ceil((cursor - spans[i].min) / 1000);
      const rewrite = makeRewriter(templates, seed, rep, shiftSeconds, fixed);
      let text = rewrite(source.text);
      if (!text.endsWith('\n')) text += '\n';
      const buf = Buffer.from(text);
      writeSync(fd, buf);
      bytes += buf.length;
      lines += countLines(text);
      cursor = spans[i].max + shiftSeconds * 1000 + 60_000;
    }
  } finally {
    closeSync(fd);
  }
  return {
    kind: 'single',
    generator: GENERATOR_VERSION,
    seed,
    targetBytes: size,
    sessionId,
    file: out,
    bytes,
    lines,
  };
}

export const corpusExists = (dir) => existsSync(join(dir, 'manifest.json'));
