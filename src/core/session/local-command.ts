// Local slash commands (/exit, /clear, /model, /mcp, /compact…) run in the
// client, not the model. Claude Code writes them as a block of user records:
//
//   <local-command-caveat>…       isMeta, opens the block
//   <command-name>/exit</…>       the echo of what was typed (optional)
//   <local-command-stdout>Bye!</…  the output — or plain text ("Unknown skill: x")
//
// or, from ~2.1.3x, as `system` records with subtype `local_command`. None of
// these is a prompt and none hands the turn to the model. The echo and the
// plain-text output look like prompts to a naive reader (isRealPrompt accepts
// them), so the block is tracked here. Prompt-type commands (/init, custom
// commands, skills) have no caveat: their `<command-name>` record is a real
// prompt, followed by an isMeta expansion the model answers.
import type { TranscriptRecord } from '../transcript/records.js';

const CAVEAT = /^\s*<local-command-caveat>/;
const OUTPUT = /^\s*<local-command-(stdout|stderr)>/;
const ECHO = /^\s*<command-(name|message|args)>/;

export interface LocalCommandTracker {
  /** A caveat opened a block that has not produced its output yet. */
  open: boolean;
  /** uuid of the block's latest record, to check the next one chains to it. */
  lastUuid: string | null;
}

/** caveat / echo: the command was typed; output: it ran and the prompt is back. */
export type LocalCommandRole = 'caveat' | 'echo' | 'output';

export const createLocalCommandTracker = (): LocalCommandTracker => ({
  open: false,
  lastUuid: null,
});

function chains(t: LocalCommandTracker, rec: TranscriptRecord): boolean {
  // Without both ids, adjacency in the file is all there is to go on.
  return t.lastUuid === null || rec.parentUuid === null || rec.parentUuid === t.lastUuid;
}

/**
 * Role of a main-thread record in a local command, or null when it is not part
 * of one. Updates the tracker: call it once per main-thread record, in file order.
 */
export function localCommandRole(
  t: LocalCommandTracker,
  rec: TranscriptRecord,
): LocalCommandRole | null {
  if (rec.type === 'system') return rec.subtype === 'local_command' ? 'output' : null;
  // Progress lines (hooks) may fall inside a block without ending it.
  if (rec.type === 'progress') return null;
  if (rec.type !== 'user' || rec.toolResults.length > 0 || rec.text === null) {
    t.open = false;
    return null;
  }
  const text = rec.text;
  if (CAVEAT.test(text)) {
    t.open = true;
    t.lastUuid = rec.uuid;
    return 'caveat';
  }
  if (OUTPUT.test(text)) {
    t.open = false;
    return 'output';
  }
  if (!t.open || rec.isMeta || !chains(t, rec)) {
    t.open = false;
    return null;
  }
  t.lastUuid = rec.uuid;
  if (ECHO.test(text)) return 'echo';
  // Free text inside the block is the command's own output ("Unknown skill: …");
  // it ends the block, so a prompt typed next is a prompt again.
  t.open = false;
  return 'output';
}
