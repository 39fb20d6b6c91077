import { CliError } from '../../adapters/cli-error.js';
import { runExport, resetOutFile, type ExportSummary } from '../../app/export.js';
import { cleanupWarnings } from '../../app/cleanup-warning.js';
import { countingSink, fileSink, otlpSink } from '../../app/span-sink.js';
import { parseCommandArgs } from '../parse-args.js';
import { exportContext, SETTINGS_FLAGS, SETTINGS_HELP } from '../settings-flags.js';
import { formatWarnings } from '../format-warnings.js';
import type { CommandIo } from '../command-io.js';

export const EXPORT_HELP = `Usage: ccotel export [paths...] [options]

Sends Claude Code sessions to an OTLP/HTTP endpoint as traces, one trace per
turn. Paths may be transcript files, session dirs, project dirs or a projects
root (default: every projects dir that exists, see --projects-dir). Re-runs send
only new or changed turns.

Options:
  --since DATE             only turns that started at or after DATE (ISO date or time)
  --dry-run                count what would be sent; send nothing
  --out FILE               write OTLP/JSON requests to FILE (one per line); no network
  --force                  resend turns already exported
  --quiet                  no progress bar and no summary (warnings are still printed)
  -h, --help               this help

${SETTINGS_HELP}`;

function parseSince(text: string | undefined): number | null {
  if (text === undefined) return null;
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw new CliError(`--since: not a date or time: '${text}'`, 2);
  return ms;
}

function summaryLine(s: ExportSummary, mode: string): string {
  const unchanged = s.turnsUnchanged > 0 ? ` (${s.turnsUnchanged} unchanged, skipped)` : '';
  const dupes = s.turnsDuplicate > 0 ? `, ${s.turnsDuplicate} duplicate history` : '';
  return `${mode}: ${s.sessions} sessions, ${s.turns} turns${unchanged}${dupes}, ${s.spansSent} spans sent, ${s.spansFailed} failed, ${s.warnings.length} warnings\n`;
}

export async function runExportCommand(argv: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('export', argv, {
    ...SETTINGS_FLAGS,
    since: { type: 'string' },
    'dry-run': { type: 'boolean' },
    out: { type: 'string' },
    force: { type: 'boolean' },
    quiet: { type: 'boolean', short: 'q' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    io.stdout(EXPORT_HELP);
    return 0;
  }
  const { settings, prices, resource } = await exportContext(values, io.env);
  const dryRun = values['dry-run'] === true;
  const out = values.out;
  if (dryRun && out !== undefined)
    throw new CliError('export: --dry-run and --out cannot be combined', 2);
  if (out !== undefined) await resetOutFile(out);
  const quiet = values.quiet === true;
  const sink = dryRun
    ? countingSink()
    : out !== undefined
      ? fileSink(out, resource)
      : otlpSink(settings, resource, {
          maxRetries: 5,
          maxBackoffMs: 5000,
          onRetry: (f, delay) => {
            if (!quiet)
              io.stderr(`ccotel: ${f.message}; retrying in ${(delay / 1000).toFixed(1)}s\n`);
          },
        });
  const progress = io.isTTY && !quiet;
  const summary = await runExport({
    paths: positionals,
    settings,
    prices,
    sink,
    since: parseSince(values.since),
    force: values.force === true,
    readOnlyState: dryRun || out !== undefined,
    onNote: (note) => io.stderr(`ccotel: ${note}\n`),
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
  // Warnings are problems with the input: --quiet hides progress and the summary, not them.
  io.stderr(formatWarnings(summary.warnings));
  if (!quiet) {
    io.stdout(
      summaryLine(
        summary,
        dryRun
          ? 'dry run'
          : out !== undefined
            ? `written to ${out}`
            : `exported to ${settings.endpoint}`,
      ),
    );
  }
  const roots = positionals.length > 0 ? positionals : settings.projectsDirs;
  const stateDir = settings.stateDir ?? '.';
  for (const note of await cleanupWarnings({ roots, stateDir, now: Date.now() }))
    io.stderr(`ccotel: ${note}\n`);
  if (summary.failure !== null)
    throw new CliError(
      `${summary.failure} (${summary.spansFailed} spans not delivered; those turns stay unrecorded and will be resent)`,
      1,
    );
  return 0;
}
