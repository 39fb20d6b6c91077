// `ccotel show`: one session as a terminal waterfall, JSON rows, or an HTML page.
// `--json` reads the session in segments of whole turns, as export does, and
// writes each segment's rows as it is finished: memory stays bounded however
// long the session. The terminal and HTML views need the whole session.
import { finish } from '../core/assemble.js';
import { costSession } from '../core/session-cost.js';
import { buildWaterfall } from '../core/waterfall.js';
import type { PriceTable } from '../core/pricing.js';
import type { SessionFiles } from '../adapters/session-files.js';
import { writeTextFile } from '../adapters/file-info.js';
import type { ReadWarning, WaterfallRow } from '../core/waterfall-row.js';
import { loadPriceTable } from '../adapters/price-file.js';
import { buildView } from './build-view.js';
import { loadSession } from './load-session.js';
import { resolveSession } from './resolve-target.js';
import { readSegments } from './session-segments.js';
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
  /**
   * Where `--json` output goes as it is produced (the CLI's stdout). Without it
   * the JSON is returned whole in ShowResult.stdout.
   */
  write?: (text: string) => void;
  /** Resolves once what was written has been taken: the next segment waits, so output never piles up. */
  drained?: () => Promise<void> | undefined;
  /** Records per segment for `--json` (tests; default: export's). */
  segmentRecords?: number;
}

/** The `--json` contract: exactly these three keys. */
export interface ShowJson {
  sessionId: string;
  rows: WaterfallRow[];
  warnings: ReadWarning[];
}

export interface ShowResult {
  stdout: string;
  /** One-line notes for stderr (unknown model prices, files still being written). */
  notes: string[];
}

/**
 * `--json` segment by segment: the same bytes as JSON.stringify(ShowJson) of
 * the whole session, written as each segment is finished.
 */
async function streamJson(
  files: SessionFiles,
  prices: PriceTable,
  write: (text: string) => void,
  drained: () => Promise<void> | undefined,
  segmentRecords: number | undefined,
): Promise<string[]> {
  const unknown = new Set<string>();
  let opened = false;
  let rowCount = 0;
  const open = (sessionId: string): void => {
    if (opened) return;
    opened = true;
    write(`{"sessionId":${JSON.stringify(sessionId)},"rows":[`);
  };
  const read = await readSegments(
    files,
    { parse: {}, ...(segmentRecords === undefined ? {} : { segmentRecords }) },
    async (model) => {
      open(model.sessionId);
      for (const m of costSession(model, prices).unknownModels) unknown.add(m);
      const rows = buildWaterfall(model).map((row) => JSON.stringify(row));
      if (rows.length > 0) write(`${rowCount > 0 ? ',' : ''}${rows.join(',')}`);
      rowCount += rows.length;
      await drained();
    },
  );
  // No segment at all (an empty transcript): the id as the whole read gives it.
  if (!opened) open(finish(read.state).sessionId);
  write(`],"warnings":${JSON.stringify(read.state.warnings)}}\n`);
  const notes = [...unknown].sort().map((m) => `no price for model ${m}: its cost is left out`);
  for (const file of read.unterminated)
    notes.push(`${file}: last line not yet complete; left for the next read`);
  return notes;
}

export async function show(options: ShowOptions): Promise<ShowResult> {
  const files = await resolveSession(options.target, options.projectsDirs);
  if (options.format === 'json' && options.html === null && options.write !== undefined) {
    const prices = await loadPriceTable(options.pricingFile ?? undefined);
    const notes = await streamJson(
      files,
      prices,
      options.write,
      options.drained ?? (() => undefined),
      options.segmentRecords,
    );
    return { stdout: '', notes };
  }
  const loaded = await loadSession(files);
  const model = finish(loaded.state);
  const prices = await loadPriceTable(options.pricingFile ?? undefined);
  const { view, unknownModels } = buildView(model, prices);
  const notes = unknownModels.map((m) => `no price for model ${m}: its cost is left out`);
  for (const file of loaded.unterminated)
    notes.push(`${file}: last line not yet complete; left for the next read`);
  if (options.html !== null) {
    // An HTML file is easily shared: it gets the same scrubbing as exported spans.
    await writeTextFile(options.html, renderHtmlWaterfall(scrubWaterfallView(view)));
    notes.push(`wrote ${options.html}`);
  }
  if (options.format === 'json') {
    const json: ShowJson = {
      sessionId: model.sessionId,
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
