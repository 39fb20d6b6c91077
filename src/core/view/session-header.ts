// The session header `show` prints (JSON `session` key, view model header):
// the session's names, settings and PR links from its own records. Absent when the session has none of them,
// so older sessions' output is unchanged.
import type { SessionInfo } from '../transcript/records.js';
import type { SessionModel } from '../model/session-model.js';

export interface SessionHeader {
  /** customTitle (set by /rename) if any, else aiTitle. */
  title: string | null;
  customTitle: string | null;
  aiTitle: string | null;
  agentName: string | null;
  /** The last `permission-mode` record, else the last prompt's permissionMode. */
  permissionMode: string | null;
  mode: string | null;
  prLinks: { number: number | null; url: string | null; repository: string | null }[];
}

export function sessionHeaderOf(model: SessionModel): SessionHeader | null {
  return headerOf(model.sessionInfo ?? {}, lastPromptModeOf(model.turns));
}

/** The permissionMode of the last prompt that has one. */
export function lastPromptModeOf(
  turns: readonly { permissionMode: string | null }[],
): string | null {
  for (let i = turns.length - 1; i >= 0; i--) {
    const mode = turns[i]?.permissionMode ?? null;
    if (mode !== null) return mode;
  }
  return null;
}

/** The header from the session's info records and its last prompt's mode (null when it has none). */
export function headerOf(info: SessionInfo, lastPromptMode: string | null): SessionHeader | null {
  const header: SessionHeader = {
    title: info.customTitle ?? info.aiTitle ?? null,
    customTitle: info.customTitle ?? null,
    aiTitle: info.aiTitle ?? null,
    agentName: info.agentName ?? null,
    permissionMode: info.permissionMode ?? lastPromptMode ?? null,
    mode: info.mode ?? null,
    prLinks: info.prLinks ?? [],
  };
  // Only the session's own name and setting records make a header: prompts have
  // carried permissionMode since 2.0.x, and older output stays as it was.
  const empty =
    header.title === null &&
    header.agentName === null &&
    info.permissionMode === undefined &&
    header.mode === null &&
    header.prLinks.length === 0;
  return empty ? null : header;
}
