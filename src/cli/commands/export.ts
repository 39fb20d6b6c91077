import { UserError } from '../../core/user-error.js';
import { terminalText } from '../../core/view/terminal-text.js';
import type { PrivateFile } from '../../adapters/files/private-file.js';
import { checkStateDir } from '../../adapters/state/state-dir.js';
import { runExport, type ExportSummary } from '../../app/export/export.js';
import { deliveryKey } from '../../app/export/session-marks.js';
import { ccotelVersion } from '../version.js';
import { cleanupWarnings } from '../../app/export/cleanup-warning.js';
import { countingSink } from '../../app/deliver/counting-sink.js';
import type { SpanSink } from '../../app/deliver/span-sink.js';
import { OutageLog } from '../../app/deliver/outage-log.js';
import { parseCommandArgs } from '../parse-args.js';
import {
  exportSettings,
  lazyResourceOf,
  resourceAttributesOf,
  SETTINGS_FLAGS,
  SETTINGS_HELP,
} from '../settings-flags.js';
import { formatWarnings } from '../format-warnings.js';
import type { CommandIo } from '../command-io.js';
import type { PriceTable } from '../../core/cost/pricing.js';
import type { Settings } from '../../core/settings.js';

export const EXPORT_HELP = `Usage: ccotel export [paths...] [options]

Sends Claude Code sessions to an OTLP/HTTP endpoint as traces, one trace per
turn. Paths may be transcript files, session dirs, project dirs or a projects
root (default: every projects dir that exists, see --projects-dir). Re-runs send
only new or changed turns.

Options:
  --since DATE             only turns that started at or after DATE (ISO date or time)
  --until DATE             only turns that started before DATE (e.g. the day Claude Code's own
                           telemetry was switched on)
  --dry-run                count what would be sent; send nothing, record nothing
  --out FILE               write OTLP/JSON requests to FILE (one per line); no network
  --force                  resend turns already exported
  --quiet                  no progress bar and no summary (warnings are still printed)
  -h, --help               this help

${SETTINGS_HELP}`;

function parseDate(text: string | undefined, flag: string): number | null {
  if (text === undefined) return null;
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw new UserError(`${flag}: not a date or time: '${text}'`, 'usage');
  return ms;
}

function summaryLine(s: ExportSummary, mode: string, verb: string): string {
  const unchanged = s.turnsUnchanged > 0 ? ` (${s.turnsUnchanged} unchanged, skipped)` : '';
  const dupes = s.turnsDuplicate > 0 ? `, ${s.turnsDuplicate} duplicate history` : '';
  const unread =
    s.filesUnread > 0
      ? `, ${s.filesUnread} unchanged file${s.filesUnread === 1 ? '' : 's'} not read`
      : '';
  const events = s.eventsSent > 0 ? ` and ${s.eventsSent} events` : '';
  return `${terminalText(mode)}: ${s.sessions} sessions, ${s.turns} turns${unchanged}${dupes}${unread}, ${s.spansSent} spans${events} ${verb}, ${s.warnings.length} warnings\n`;
}

/** Why the run did not deliver everything (one line), or null when it did. */
export function failureLine(s: ExportSummary, endpoint: string): string | null {
  const problems: string[] = [];
  if (s.failure !== null)
    problems.push(`${s.failure} (${s.spansSent} spans sent, ${s.spansFailed} not delivered)`);
  if (s.spansRejected > 0) {
    const why =
      s.rejectMessages.length === 0 ? '' : `: ${s.rejectMessages.slice(0, 3).join(' | ')}`;
    problems.push(
      `the collector at ${endpoint} rejected ${s.spansRejected} spans (partial success${why})`,
    );
  }
  if (s.eventsRejected > 0) {
    const why =
      s.rejectMessages.length === 0 ? '' : `: ${s.rejectMessages.slice(0, 3).join(' | ')}`;
    problems.push(`the collector rejected ${s.eventsRejected} events (partial success${why})`);
  }
  if (s.tooLarge.length > 0) {
    const shown = s.tooLarge.slice(0, 3).map((t) => `${t.spanId} (${t.bytes} bytes)`);
    const more = s.tooLarge.length > 3 ? ` and ${s.tooLarge.length - 3} more` : '';
    problems.push(
      `${s.tooLarge.length} span(s) too large for the collector even alone (HTTP 413): ${shown.join(', ')}${more}`,
    );
  }
  if (problems.length === 0) return null;
  return `${problems.join('; ')}; those turns stay unrecorded and will be resent whole, same ids`;
}

/**
 * Retries are reported per outage, not per attempt (OutageLog): one line
 * when the collector stops answering, one when it answers again.
 */
function outageReporter(io: CommandIo, quiet: boolean): OutageLog {
  const say = quiet ? () => undefined : (line: string) => io.stderr(line);
  return new OutageLog(
    {
      started: (failure, delayMs) =>
        say(
          `ccotel: collector not accepting (${terminalText(failure.message)}); retrying, next in ${((delayMs ?? 0) / 1000).toFixed(1)}s\n`,
        ),
      ended: (outageMs) =>
        say(`ccotel: collector answering again after ${(outageMs / 1000).toFixed(1)}s\n`),
    },
    { monotonic: () => Date.now() },
  );
}

/** The sink of a run that writes (--out) or sends its spans. */
async function sendingSink(
  settings: Settings,
  outFile: PrivateFile | null,
  outage: OutageLog,
): Promise<SpanSink> {
  const { fileSink, otlpSink } = await import('../../app/deliver/span-sink.js');
  if (outFile !== null) return fileSink(outFile, lazyResourceOf(settings));
  const sink = otlpSink(settings, lazyResourceOf(settings), {
    maxRetries: 5,
    maxBackoffMs: 5000,
    onRetry: (f, delay) => outage.start(f, delay),
  });
  return sink.form === 'protobuf' ? outage.watch(sink) : outage.watch(sink);
}

/** The state dir's lock, for a run that records what it sent. */
async function lockState(stateDir: string, io: CommandIo) {
  const { lockStateDir } = await import('../../adapters/state/state-lock.js');
  return lockStateDir(stateDir, 'export', {
    warn: (m) => io.stderr(`ccotel: warning: ${terminalText(m)}\n`),
    onWait: (h) => io.stderr(`ccotel: waiting for the export running as pid ${h.pid} to finish\n`),
  });
}

export async function runExportCommand(argv: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseExportArgs(argv);
  if (values.help === true) {
    io.stdout(EXPORT_HELP);
    return 0;
  }
  // A dry run builds no resource: the OTel packages behind it stay unloaded.
  const { settings, prices } = await exportSettings(values, io.env);
  const dryRun = values['dry-run'] === true;
  const out = values.out;
  if (dryRun && out !== undefined)
    throw new UserError('export: --dry-run and --out cannot be combined', 'usage');
  const quiet = values.quiet === true;
  const outage = outageReporter(io, quiet);
  // What only writing or sending runs use is imported when they run: a dry run
  // loads neither the OTLP writers and HTTP sender nor the state lock.
  const outFile: PrivateFile | null =
    out === undefined
      ? null
      : await (await import('../../adapters/files/private-file.js')).openPrivateFile(out, '--out');
  const sink = dryRun ? countingSink() : await sendingSink(settings, outFile, outage);
  const readOnly = dryRun || out !== undefined;
  // Runs that record what they sent take turns; a running daemon makes export refuse.
  // Read-only runs still read the state: a dir that cannot be one is named, not stumbled on.
  if (readOnly) await checkStateDir(settings.stateDir ?? '.', '--state-dir');
  const lock = readOnly ? null : await lockState(settings.stateDir ?? '.', io);
  let summary: ExportSummary;
  try {
    summary = await exportWith(positionals, values, settings, prices, sink, io, readOnly);
    await sink.close?.();
  } catch (err) {
    await outFile?.discard();
    throw err;
  } finally {
    await lock?.release();
  }
  // Warnings are problems with the input: --quiet hides progress and the summary, not them.
  io.stderr(formatWarnings(summary.warnings));
  const roots = positionals.length > 0 ? positionals : settings.projectsDirs;
  for (const note of await cleanupWarnings({
    roots,
    listed: summary.listed,
    stamped: summary.mainStamps,
    delivered: summary.deliveredWhole,
    stateDir: settings.stateDir ?? '.',
    now: Date.now(),
  }))
    io.stderr(`ccotel: ${terminalText(note)}\n`);
  const failure = failureLine(summary, settings.endpoint);
  if (failure !== null) throw new UserError(failure, 'failed');
  if (!quiet) {
    io.stdout(
      dryRun
        ? summaryLine(summary, 'dry run', 'would be sent')
        : out !== undefined
          ? summaryLine(summary, `written to ${out}`, 'written')
          : summaryLine(summary, `exported to ${settings.endpoint}`, 'sent'),
    );
  }
  return 0;
}

type ExportValues = ReturnType<typeof parseExportArgs>['values'];

function parseExportArgs(argv: string[]) {
  return parseCommandArgs('export', argv, {
    ...SETTINGS_FLAGS,
    since: { type: 'string' },
    until: { type: 'string' },
    'dry-run': { type: 'boolean' },
    out: { type: 'string' },
    force: { type: 'boolean' },
    quiet: { type: 'boolean', short: 'q' },
    help: { type: 'boolean', short: 'h' },
  });
}

function exportWith(
  paths: string[],
  values: ExportValues,
  settings: Settings,
  prices: PriceTable,
  sink: SpanSink,
  io: CommandIo,
  readOnlyState: boolean,
): Promise<ExportSummary> {
  const progress = io.isTTY && values.quiet !== true;
  const since = parseDate(values.since, '--since');
  const until = parseDate(values.until, '--until');
  if (since !== null && until !== null && until <= since)
    throw new UserError('--until: must be later than --since', 'usage');
  return runExport({
    paths,
    settings,
    prices,
    sink,
    since,
    until,
    force: values.force === true,
    deliveryKey: deliveryKey(settings, resourceAttributesOf(settings), prices, ccotelVersion()),
    readOnlyState,
    onNote: (note) => io.stderr(`ccotel: ${terminalText(note)}\n`),
    ...(progress
      ? {
          onProgress: (done: number, total: number) => {
            const width = 30;
            const filled = Math.round((done / total) * width);
            io.stderr(
              `\r[${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${done}/${total} sessions${done === total ? '\n' : ''}`,
            );
          },
        }
      : {}),
  });
}
