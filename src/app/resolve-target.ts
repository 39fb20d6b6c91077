// A `show`/`export` target: a transcript path, a session or project dir, or a session id.
import { stat } from 'node:fs/promises';
import { findSessionById, findSessions, type SessionFiles } from '../adapters/session-files.js';
import { CliError } from '../adapters/cli-error.js';

const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function resolveSession(
  target: string,
  projectsDirs: string[],
): Promise<SessionFiles> {
  const exists = (await stat(target).catch(() => null)) !== null;
  if (!exists && SESSION_ID.test(target)) {
    for (const root of projectsDirs) {
      const found = await findSessionById(root, target).catch(() => null);
      if (found !== null) return found;
    }
    throw new CliError(`session ${target} not found under ${projectsDirs.join(', ')}`, 3);
  }
  const sessions = await findSessions(target);
  if (sessions.length > 1) {
    throw new CliError(
      `${target} holds ${sessions.length} sessions; name one transcript file or session id`,
      2,
    );
  }
  const only = sessions[0];
  if (only === undefined) throw new CliError(`no Claude Code transcripts found under ${target}`, 3);
  return only;
}
