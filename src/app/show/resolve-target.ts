// A `show` target: a transcript path, a session dir (<proj>/<sid>/), a project
// dir holding one session, a session id, or the start of one (as `git` takes a
// short hash). Ids are looked up in every projects dir.
import {
  findSessionById,
  findSessions,
  findSessionsByIdPrefix,
  statOrNull,
  type SessionFiles,
} from '../../adapters/files/session-files.js';
import { UserError } from '../../core/user-error.js';
import { realPathOf } from '../../adapters/files/projects-dir.js';

const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The start of a session id: at least 4 hex digits, dashes where a UUID has them. */
const ID_PREFIX = /^[0-9a-f]{4,8}(-[0-9a-f]{0,4}){0,3}(-[0-9a-f]{0,12})?$/i;
/** Candidates named in an ambiguous-prefix error, at most. */
const MAX_LISTED = 5;

async function byId(id: string, projectsDirs: string[]): Promise<SessionFiles> {
  for (const root of projectsDirs) {
    const found = await findSessionById(root, id).catch(() => null);
    if (found !== null) return found;
  }
  throw new UserError(`session ${id} not found under ${projectsDirs.join(', ')}`, 'not-found');
}

function byPrefix(prefix: string, projectsDirs: string[]): SessionFiles {
  // The same transcript reached through two roots (a symlink) is one candidate.
  const unique = new Map<string, SessionFiles>();
  for (const root of projectsDirs)
    for (const s of findSessionsByIdPrefix(root, prefix)) {
      const key = realPathOf(s.mainFile);
      if (!unique.has(key)) unique.set(key, s);
    }
  const found = [...unique.values()];
  const only = found[0];
  if (only === undefined)
    throw new UserError(
      `no session id starts with ${prefix} under ${projectsDirs.join(', ')}`,
      'not-found',
    );
  if (found.length === 1) return only;
  const ids = found.map((s) => s.sessionId).sort();
  const listed = ids.slice(0, MAX_LISTED).join(', ');
  const more = ids.length > MAX_LISTED ? ` and ${ids.length - MAX_LISTED} more` : '';
  throw new UserError(
    `session id prefix ${prefix} is ambiguous: ${listed}${more}; give more of the id`,
    'usage',
  );
}

export async function resolveSession(
  target: string,
  projectsDirs: string[],
): Promise<SessionFiles> {
  const exists = statOrNull(target) !== null;
  if (!exists && SESSION_ID.test(target)) return byId(target, projectsDirs);
  if (!exists && ID_PREFIX.test(target)) return byPrefix(target, projectsDirs);
  const sessions = await findSessions(target);
  if (sessions.length > 1) {
    throw new UserError(
      `${target} holds ${sessions.length} sessions; name one transcript file or session id`,
      'usage',
    );
  }
  const only = sessions[0];
  if (only === undefined)
    throw new UserError(`no Claude Code transcripts found under ${target}`, 'not-found');
  return only;
}
