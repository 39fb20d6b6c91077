// The session header `show` prints (JSON `session` key, view model header):
// the session's names, settings and PR links from its own records. Absent when the session has none of them,
// so older sessions' output is unchanged.
import type { SessionModel } from './session-model.js';

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
  const info = model.sessionInfo ?? {};
  const lastPromptMode = [...model.turns].reverse().find((t) => t.permissionMode !== null);
  const header: SessionHeader = {
    title: info.customTitle ?? info.aiTitle ?? null,
    customTitle: info.customTitle ?? null,
    aiTitle: info.aiTitle ?? null,
    agentName: info.agentName ?? null,
    permissionMode: info.permissionMode ?? lastPromptMode?.permissionMode ?? null,
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
