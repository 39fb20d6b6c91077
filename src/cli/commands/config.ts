import { loadConfig } from '../../adapters/config/config-loader.js';
import { UserError } from '../../core/user-error.js';
import { terminalText } from '../../core/view/terminal-text.js';
import { BUNDLED_PRICING } from '../../adapters/config/price-file.js';
import { logsUrlBeside } from '../../adapters/otlp/logs.js';
import { maskSecrets, type Settings } from '../../core/settings.js';
import { parseCommandArgs } from '../parse-args.js';
import { SETTINGS_FLAGS, SETTINGS_HELP, settingsFromFlags } from '../settings-flags.js';
import type { CommandIo } from '../command-io.js';
import { projectsDirsReport, renderProjectsDirsReport } from '../projects-dirs-report.js';

export const CONFIG_HELP = `Usage: ccotel config check [options] [--json]

Prints the effective configuration and where each value came from (flag, env,
file, default), with secrets masked. Exits 2 if the config file is invalid,
naming the offending key.

${SETTINGS_HELP}`;

function show(value: unknown): string {
  if (value === null) return '(none)';
  if (Array.isArray(value)) return value.length === 0 ? '(none)' : value.join(', ');
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, string>);
    return entries.length === 0 ? '(none)' : entries.map(([k, v]) => `${k}=${v}`).join(', ');
  }
  return String(value);
}

export async function runConfigCommand(argv: string[], io: CommandIo): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === '--help' || sub === '-h' || sub === undefined) {
    io.stdout(CONFIG_HELP);
    return sub === undefined ? 2 : 0;
  }
  if (sub !== 'check')
    throw new UserError(`config: unknown subcommand '${sub}' (only 'check')`, 'usage');
  const { values } = parseCommandArgs('config check', rest, {
    ...SETTINGS_FLAGS,
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    io.stdout(CONFIG_HELP);
    return 0;
  }
  const { flags, configFile } = settingsFromFlags(values);
  const loaded = loadConfig(flags, io.env, configFile);
  // No --pricing means the bundled table (price-file.ts): say which file that is.
  const masked = { ...maskSecrets(loaded.settings) };
  masked.pricing ??= BUNDLED_PRICING;
  const keys = Object.keys(masked) as (keyof Settings)[];
  const { value: dirs, source: dirsSource } = loaded.sources.projectsDirs;
  const projectsDirs = projectsDirsReport(dirs, dirsSource, io.env);
  if (values.json === true) {
    const out = Object.fromEntries(
      keys.map((k) => [k, { value: masked[k], source: loaded.sources[k].source }]),
    );
    const json = { configFile: loaded.configFile, settings: out, projectsDirs };
    io.stdout(`${JSON.stringify(json, null, 2)}\n`);
    return 0;
  }
  const width = Math.max(...keys.map((k) => k.length));
  // Values and paths come from files and the environment: escaped like transcript text.
  io.stdout(`config file: ${terminalText(loaded.configFile ?? '(none)')}\n`);
  const bundled = loaded.settings.pricing === null ? ' (bundled)' : '';
  // No logs endpoint set means the one beside the traces URL (events of --schema claude-code).
  const besideTraces = logsUrlBeside(loaded.settings.endpoint);
  for (const k of keys) {
    const note = k === 'pricing' ? bundled : '';
    const value =
      k === 'logsEndpoint' && masked.logsEndpoint === null && besideTraces !== null
        ? `${besideTraces} (beside endpoint)`
        : show(masked[k]);
    io.stdout(`${k.padEnd(width)}  ${terminalText(value)}${note}  [${loaded.sources[k].source}]\n`);
  }
  io.stdout(renderProjectsDirsReport(projectsDirs));
  return Promise.resolve(0);
}
