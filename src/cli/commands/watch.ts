import { createJsonLogger } from '../../adapters/logger.js';
import { startWatch } from '../../app/watch/daemon.js';
import { parseCommandArgs } from '../parse-args.js';
import { exportContext, SETTINGS_FLAGS, SETTINGS_HELP } from '../settings-flags.js';
import type { CommandIo } from '../command-io.js';

export const WATCH_HELP = `Usage: ccotel watch [options]

Follows the Claude Code projects dirs and sends each span to the OTLP/HTTP
endpoint as soon as the work it describes is over: a tool call when its result
is written, a turn when it ends. Same spans and ids as 'ccotel export'; turns it
delivered in full are recorded so that a later export skips them.
Logs are JSON lines on stderr. Stops cleanly on SIGINT/SIGTERM.

Options:
  --backfill               also send history from before the first start
                           (everything not yet exported)
  --once                   process what is there, send what is complete, exit
  --idle-timeout DUR       a session quiet this long has its unfinished work sent,
                           marked incomplete (default 10m; 30s, 10m, 1h)
  --log-level L            debug | info (default) | warn | error
  -h, --help               this help

${SETTINGS_HELP}`;

export async function runWatchCommand(argv: string[], io: CommandIo): Promise<number> {
  const { values } = parseCommandArgs('watch', argv, {
    ...SETTINGS_FLAGS,
    backfill: { type: 'boolean' },
    once: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    io.stdout(WATCH_HELP);
    return 0;
  }
  const { settings, prices, resource } = await exportContext(values, io.env);
  const log = createJsonLogger((line) => io.stderr(line), settings.logLevel);
  const daemon = await startWatch({
    settings,
    prices,
    resource,
    log,
    backfill: values.backfill === true,
    once: values.once === true,
  });
  if (values.once === true) {
    // A signal during --once still stops it cleanly.
    void io.stopSignal.then((signal) => daemon.stop(signal));
    return daemon.done;
  }
  const signal = await Promise.race([io.stopSignal, daemon.done.then(() => null)]);
  if (signal === null) return daemon.done;
  return daemon.stop(signal);
}
