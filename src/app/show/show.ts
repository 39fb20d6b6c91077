// `ccotel show`: one session as a terminal waterfall, JSON rows, or an HTML page.
// Every view reads the session in segments of whole turns, as export does:
// `--json` without a filter writes each segment's rows as it is finished, so
// memory stays bounded however long the session; the terminal and HTML views,
// and filtered JSON, keep the rows of every segment (segmented-view.ts) but
// no record.
import { finish } from '../../core/model/assemble/finish.js';
import { costSession } from '../../core/cost/session-cost.js';
import { addSegmentCost, costStateWarning } from '../../core/cost/cost-state.js';
import { buildWaterfall } from '../../core/view/waterfall.js';
import type { PriceTable } from '../../core/cost/pricing.js';
import { headerOf, lastPromptModeOf } from '../../core/view/session-header.js';
import type { SessionInfo } from '../../core/transcript/records.js';
import type { SessionFiles } from '../../adapters/files/session-files.js';
import type { WaterfallView } from './render/waterfall-view.js';
import { UserError } from '../../core/user-error.js';
import type { ReadWarning, WaterfallRow } from '../../core/view/waterfall-row.js';
import type { SessionHeader } from '../../core/view/session-header.js';
import { loadPriceTable } from '../../adapters/config/price-file.js';
import { windowsOf } from '../../core/cost/pricing.js';
import { buildViewInSegments } from './segmented-view.js';
import { resolveSession } from './resolve-target.js';
import { readSession } from '../read/read-session.js';
import { renderTerminalWaterfall } from './render/terminal-waterfall.js';
import {
  describeFilter,
  filterView,
  isFiltering,
  missingTurn,
  type ViewFilter,
} from './render/view-filter.js';

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
  /**
   * Where `--json` output goes as it is produced (the CLI's stdout). Without it
   * the JSON is returned whole in ShowResult.stdout.
   */
  write?: (text: string) => void;
  /** Resolves once what was written has been taken: the next segment waits, so output never piles up. */
  drained?: () => Promise<void> | undefined;
  /** Records per segment (tests; default: export's). */
  segmentRecords?: number;
  /** Records after which an open segment is cut anyway (tests; default: export's). */
  forceRecords?: number;
}

/**
 * The `--json` contract: sessionId, rows and warnings always; `session` (the
 * header: names, settings, PR links) and `unknownRecordTypes` (type → lines)
 * only when the session has any. Both come after the rows: they are known only
 * once the whole session is read, and the rows are written as they are made.
 */
export interface ShowJson {
  sessionId: string;
  rows: WaterfallRow[];
  warnings: ReadWarning[];
  session?: SessionHeader;
  unknownRecordTypes?: Record<string, number>;
}

/** The keys after the rows and warnings, as the whole read and the segments both give them. */
function jsonTail(
  header: SessionHeader | null,
  unknown: Record<string, number>,
): Pick<ShowJson, 'session' | 'unknownRecordTypes'> {
  return {
    ...(header === null ? {} : { session: header }),
    ...(Object.keys(unknown).length === 0 ? {} : { unknownRecordTypes: unknown }),
  };
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
  sizes: Pick<ShowOptions, 'segmentRecords' | 'forceRecords'>,
): Promise<string[]> {
  const unknown = new Set<string>();
  const derivedWarnings: ReadWarning[] = [];
  let info: SessionInfo = {};
  let lastMode: string | null = null;
  let unknownTypes: Record<string, number> = {};
  let opened = false;
  let rowCount = 0;
  let ownCost: number | null = null;
  const open = (sessionId: string): void => {
    if (opened) return;
    opened = true;
    write(`{"sessionId":${JSON.stringify(sessionId)},"rows":[`);
  };
  const read = readSession(files, { parse: {}, windowOf: windowsOf(prices), ...sizes });
  for await (const { model } of read.segments()) {
    open(model.sessionId);
    const costs = costSession(model, prices);
    for (const m of costs.unknownModels) unknown.add(m);
    ownCost = addSegmentCost(ownCost, model, costs.byResponse);
    // Session-wide facts: the state carries them, the last segment has them all.
    info = model.sessionInfo ?? {};
    unknownTypes = model.unknownRecordTypes ?? {};
    lastMode = lastPromptModeOf(model.turns) ?? lastMode;
    derivedWarnings.push(...(model.derivedWarnings ?? []));
    const rows = buildWaterfall(model).map((row) => JSON.stringify(row));
    if (rows.length > 0) write(`${rowCount > 0 ? ',' : ''}${rows.join(',')}`);
    rowCount += rows.length;
    await drained();
  }
  // No segment at all (an empty transcript): the id as the whole read gives it.
  if (!opened) open(finish(read.state).sessionId);
  const costWarning = costStateWarning(read.state.costState, ownCost);
  const warnings = [
    ...read.state.warnings,
    ...derivedWarnings,
    ...(costWarning === null ? [] : [costWarning]),
  ];
  const tail = JSON.stringify(jsonTail(headerOf(info, lastMode), unknownTypes)).slice(1, -1);
  write(`],"warnings":${JSON.stringify(warnings)}${tail === '' ? '' : `,${tail}`}}\n`);
  const notes = [...unknown].sort().map((m) => `no price for model ${m}: its cost is left out`);
  for (const [file, line] of read.unterminatedLine) notes.push(unterminatedNote(file, line));
  return notes;
}

/** A one-shot read has no next read: say what the file's end is and that it was skipped. */
const unterminatedNote = (file: string, line: number): string =>
  `${file}:${line}: no newline at the end of the file; this last line was not read (still being written, or not a transcript)`;

const segmentSizes = (
  options: ShowOptions,
): Pick<ShowOptions, 'segmentRecords' | 'forceRecords'> => ({
  ...(options.segmentRecords === undefined ? {} : { segmentRecords: options.segmentRecords }),
  ...(options.forceRecords === undefined ? {} : { forceRecords: options.forceRecords }),
});

/**
 * An HTML file is easily shared: it gets the same scrubbing as exported spans
 * (and is 0600). Its renderer, page assets and file writer are imported here,
 * not at start-up: a terminal `show` does not load them.
 */
async function writeHtml(path: string, view: WaterfallView): Promise<void> {
  const [{ writePrivateFile }, { renderHtmlWaterfall }, { scrubWaterfallView }] = await Promise.all(
    [
      import('../../adapters/files/private-file.js'),
      import('./render/html-waterfall.js'),
      import('./scrub-view.js'),
    ],
  );
  await writePrivateFile(path, renderHtmlWaterfall(scrubWaterfallView(view)), '--html');
}

export async function show(options: ShowOptions): Promise<ShowResult> {
  const files = await resolveSession(options.target, options.projectsDirs);
  const streams = options.format === 'json' && options.html === null && options.write !== undefined;
  if (streams && !isFiltering(options.filter) && options.write !== undefined) {
    const prices = await loadPriceTable(options.pricingFile ?? undefined);
    const notes = await streamJson(
      files,
      prices,
      options.write,
      options.drained ?? (() => undefined),
      segmentSizes(options),
    );
    return { stdout: '', notes };
  }
  const prices = await loadPriceTable(options.pricingFile ?? undefined);
  const built = await buildViewInSegments(files, prices, segmentSizes(options));
  const { unknownModels } = built;
  const noTurn = missingTurn(options.filter, built.view);
  if (noTurn !== null) throw new UserError(noTurn, 'usage');
  const view = filterView(built.view, options.filter);
  const filterNote = describeFilter(options.filter, built.view, view);
  const notes = unknownModels.map((m) => `no price for model ${m}: its cost is left out`);
  // A one-shot read has no next read: say what the file's end is and that it was skipped.
  for (const [file, line] of built.unterminatedLine) notes.push(unterminatedNote(file, line));
  if (options.html !== null) {
    await writeHtml(options.html, view);
    notes.push(`wrote ${options.html}`);
  }
  if (options.format === 'json') {
    const json: ShowJson = {
      sessionId: view.sessionId,
      rows: view.rows,
      warnings: view.warnings,
      ...jsonTail(view.header ?? null, built.unknownRecordTypes),
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
