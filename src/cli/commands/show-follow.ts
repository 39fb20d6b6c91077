// `ccotel show --follow`: on a terminal, a full-screen view on the alternate
// screen, redrawn as the session's files grow and restored on every way out
// (q, Ctrl-C, a signal, an error); off a terminal, one plain line per
// finished call or turn.
import { systemClock } from '../../adapters/system-clock.js';
import { followSession } from '../../app/show/follow/follow.js';
import type { FollowSnapshot } from '../../app/show/follow/session-follow.js';
import { followEventLine, followFrame } from '../../app/show/render/follow-frame.js';
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
  const paint = (snapshot: FollowSnapshot): void => {
    const lines = followFrame(snapshot, Date.now(), out.columns, out.rows);
    out.write(`${HOME}${lines.map((l) => `${l}${CLEAR_LINE_END}`).join('\n')}${CLEAR_BELOW}`);
  };
  let quit: () => void = () => undefined;
  const quitKey = new Promise<void>((resolve) => (quit = resolve));
  const onKey = (data: Buffer): void => {
    const key = data.toString('utf8');
    if (key === 'q' || key === CTRL_C) quit();
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
