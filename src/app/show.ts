// `ccotel show`: one session as a terminal waterfall, JSON rows, or an HTML page.
import { finish } from '../core/assemble.js';
import { CliError } from '../adapters/cli-error.js';
import type { ReadWarning, WaterfallRow } from '../core/waterfall-row.js';
import type { SessionHeader } from '../core/session-header.js';
import { loadPriceTable } from '../adapters/price-file.js';
import { windowsOf } from '../core/pricing.js';
import { writePrivateFile } from '../adapters/private-file.js';
import { buildView } from './build-view.js';
import { loadSession } from './load-session.js';
import { resolveSession } from './resolve-target.js';
import { renderTerminalWaterfall } from './render/terminal-waterfall.js';
import { renderHtmlWaterfall } from './render/html-waterfall.js';
import { scrubWaterfallView } from './scrub-view.js';
import { describeFilter, filterView, missingTurn, type ViewFilter } from './render/view-filter.js';

export interface ShowOptions {
  target: string;
  projectsDirs: string[];
  format: 'terminal' | 'json';
  html: string | null;
  pricingFile: string | null;
  color: boolean;
  width: number;
  /** `--errors`, `--turn`, `--since`, `--until`: what part of the session to show. */
  filter: ViewFilter;
  /** `--compact`: one terminal line per turn. */
  compact: boolean;
}

/**
 * The `--json` contract: sessionId, rows and warnings always; `session` (the
 * header: names, settings, PR links, prompt ids) and `unknownRecordTypes`
 * (type → lines) only when the session has any.
 */
export interface ShowJson {
  sessionId: string;
  session?: SessionHeader;
  unknownRecordTypes?: Record<string, number>;
  rows: WaterfallRow[];
  warnings: ReadWarning[];
}

export interface ShowResult {
  stdout: string;
  /** One-line notes for stderr (unknown model prices, files still being written). */
  notes: string[];
}

export async function show(options: ShowOptions): Promise<ShowResult> {
  const files = await resolveSession(options.target, options.projectsDirs);
  const loaded = await loadSession(files);
  const prices = await loadPriceTable(options.pricingFile ?? undefined);
  const model = finish(loaded.state, windowsOf(prices));
  const built = buildView(model, prices);
  const { unknownModels } = built;
  const noTurn = missingTurn(options.filter, built.view);
  if (noTurn !== null) throw new CliError(noTurn, 2);
  const view = filterView(built.view, options.filter);
  const filterNote = describeFilter(options.filter, built.view, view);
  const notes = unknownModels.map((m) => `no price for model ${m}: its cost is left out`);
  // A one-shot read has no next read: say what the file's end is and that it was skipped.
  for (const [file, line] of loaded.unterminatedLine)
    notes.push(
      `${file}:${line}: no newline at the end of the file; this last line was not read (still being written, or not a transcript)`,
    );
  if (options.html !== null) {
    // An HTML file is easily shared: it gets the same scrubbing as exported spans (and is 0600).
    await writePrivateFile(options.html, renderHtmlWaterfall(scrubWaterfallView(view)), '--html');
    notes.push(`wrote ${options.html}`);
  }
  if (options.format === 'json') {
    const unknown = model.unknownRecordTypes ?? {};
    // Key order is the contract's: the header before the rows.
    const json: ShowJson = {
      sessionId: model.sessionId,
      ...(view.header === undefined ? {} : { session: view.header }),
      ...(Object.keys(unknown).length === 0 ? {} : { unknownRecordTypes: unknown }),
      rows: view.rows,
      warnings: model.warnings,
    };
    return { stdout: `${JSON.stringify(json)}\n`, notes };
  }
  if (options.html !== null) return { stdout: '', notes };
  return {
    stdout: renderTerminalWaterfall(view, {
      color: options.color,
      width: options.width,
      compact: options.compact,
      ...(filterNote === null ? {} : { filterNote }),
    }),
    notes,
  };
}
