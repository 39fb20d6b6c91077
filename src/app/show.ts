// `ccotel show`: one session as a terminal waterfall, JSON rows, or an HTML page.
import { writeFile } from 'node:fs/promises';
import { finish } from '../core/assemble.js';
import type { ReadWarning, WaterfallRow } from '../core/waterfall-row.js';
import type { SessionHeader } from '../core/session-header.js';
import { loadPriceTable } from '../adapters/price-file.js';
import { windowsOf } from '../core/pricing.js';
import { buildView } from './build-view.js';
import { loadSession } from './load-session.js';
import { resolveSession } from './resolve-target.js';
import { renderTerminalWaterfall } from './render/terminal-waterfall.js';
import { renderHtmlWaterfall } from './render/html-waterfall.js';
import { scrubWaterfallView } from './scrub-view.js';

export interface ShowOptions {
  target: string;
  projectsDirs: string[];
  format: 'terminal' | 'json';
  html: string | null;
  pricingFile: string | null;
  color: boolean;
  width: number;
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
  const { view, unknownModels } = buildView(model, prices);
  const notes = unknownModels.map((m) => `no price for model ${m}: its cost is left out`);
  for (const file of loaded.unterminated)
    notes.push(`${file}: last line not yet complete; left for the next read`);
  if (options.html !== null) {
    // An HTML file is easily shared: it gets the same scrubbing as exported spans.
    await writeFile(options.html, renderHtmlWaterfall(scrubWaterfallView(view)), 'utf8');
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
    stdout: renderTerminalWaterfall(view, { color: options.color, width: options.width }),
    notes,
  };
}
