// `ccotel show --follow`: on a terminal, a full-screen view on the alternate
// screen, redrawn as the session's files grow and restored on every way out
// (q, Ctrl-C, a signal, an error); off a terminal, one plain line per
// finished call or turn.
import { systemClock } from '../../adapters/system-clock.js';
import { followSession } from '../../app/show/follow/follow.js';
import type { FollowSnapshot } from '../../app/show/follow/session-follow.js';
import {
  followEventLine,
  followFrame,
  INITIAL_VIEW,
  visibleRows,
  type FollowViewState,
} from '../../app/show/render/follow-frame.js';
import { terminalText } from '../../core/view/terminal-text.js';
import type { CommandIo } from '../command-io.js';

export interface FollowArgs {
  target: string | null;
  projectsDirs: string[];
  pricingFile: string | null;
  once: boolean;
}

const ALT_SCREEN_ON = '\x1b[?1049h\x1b[?25l';
const ALT_SCREEN_OFF = '\x1b[?25h\x1b[?1049l';
const HOME = '\x1b[H';
const CLEAR_LINE_END = '\x1b[K';
const CLEAR_BELOW = '\x1b[J';
const CTRL_C = '\x03';
const UP = '\x1b[A';
const DOWN = '\x1b[B';

/** What a key does to the view; null for a key that does nothing. */
export function keyPress(
  key: string,
  view: FollowViewState,
  listed: number,
): FollowViewState | 'quit' | null {
  if (key === 'q' || key === CTRL_C) return 'quit';
  if (key === 'e') return { ...view, errorsOnly: !view.errorsOnly, selected: null, details: false };
  if (key === 'a') return { ...view, expandAll: !view.expandAll, selected: null, details: false };
  if (key === '\r' || key === '\n')
    return view.selected === null ? null : { ...view, details: !view.details };
  if (key === UP && listed > 0)
    return { ...view, selected: Math.max(0, (view.selected ?? listed) - 1) };
  // Past the last row: nothing picked, the latest calls kept in sight again.
  if (key === DOWN && view.selected !== null)
    return view.selected + 1 >= listed
      ? { ...view, selected: null, details: false }
      : { ...view, selected: view.selected + 1 };
  return null;
}

export async function runFollow(args: FollowArgs, io: CommandIo): Promise<number> {
  const tty = io.isTTY && process.stdout.isTTY && process.stdin.isTTY && !args.once;
  if (!tty) return followLines(args, io);
  return followScreen(args, io);
}

/** Off a terminal: the finished calls and turns as lines, until the input ends (--once) or a signal. */
async function followLines(args: FollowArgs, io: CommandIo): Promise<number> {
  const width = Number(io.env.COLUMNS) > 0 ? Number(io.env.COLUMNS) : 100;
  const following = await followSession({
    ...args,
    cwd: process.cwd(),
    clock: systemClock,
    stop: io.stopSignal,
    onEvents: (events) => {
      for (const e of events) io.stdout(`${followEventLine(e, width)}\n`);
    },
    onError: (err) => io.stderr(`ccotel: ${terminalText(err.message)}\n`),
  });
  await following.done;
  return 0;
}

async function followScreen(args: FollowArgs, io: CommandIo): Promise<number> {
  const out = process.stdout;
  let view = INITIAL_VIEW;
  let last: FollowSnapshot | null = null;
  const paint = (snapshot: FollowSnapshot): void => {
    last = snapshot;
    const lines = followFrame(snapshot, Date.now(), out.columns, out.rows, view);
    out.write(`${HOME}${lines.map((l) => `${l}${CLEAR_LINE_END}`).join('\n')}${CLEAR_BELOW}`);
  };
  let quit: () => void = () => undefined;
  const quitKey = new Promise<void>((resolve) => (quit = resolve));
  const onKey = (data: Buffer): void => {
    const listed = last?.open == null ? 0 : visibleRows(last.open.rows, view).length;
    const next = keyPress(data.toString('utf8'), view, listed);
    if (next === 'quit') quit();
    else if (next !== null) {
      view = next;
      if (last !== null) paint(last);
    }
  };
  const restore = (): void => {
    process.stdin.off('data', onKey);
    if (process.stdin.isTTY) process.stdin.setRawMode(false);
    process.stdin.pause();
    out.write(ALT_SCREEN_OFF);
  };
  out.write(ALT_SCREEN_ON);
  process.stdin.setRawMode(true);
  process.stdin.resume();
  process.stdin.on('data', onKey);
  // Restored even when the process is ended some other way.
  process.once('exit', restore);
  try {
    const following = await followSession({
      ...args,
      cwd: process.cwd(),
      clock: systemClock,
      stop: Promise.race([quitKey, io.stopSignal]),
      onEvents: () => undefined,
      onFrame: paint,
      onError: (err) => io.stderr(`ccotel: ${terminalText(err.message)}\n`),
    });
    const onResize = (): void => following.redraw();
    out.on('resize', onResize);
    await following.done;
    out.off('resize', onResize);
  } finally {
    process.off('exit', restore);
    restore();
  }
  return 0;
}
