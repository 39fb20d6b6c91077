// A view headed for a file others may open: labels, inputs and outputs scrubbed.
import { scrubText, scrubValue } from '../../core/spans/scrub.js';
import type { WaterfallRow } from '../../core/view/waterfall-row.js';
import type { WaterfallView } from './render/waterfall-view.js';

function scrubRow(row: WaterfallRow): WaterfallRow {
  return {
    ...row,
    label: scrubText(row.label),
    input: scrubValue(row.input) as Record<string, unknown>,
    output: row.output === null ? null : scrubText(row.output),
    children: row.children.map(scrubRow),
  };
}

export function scrubWaterfallView(view: WaterfallView): WaterfallView {
  return {
    ...view,
    // The session's title (its custom or AI title) is text the user or a model wrote.
    title: scrubText(view.title),
    ...(view.header === undefined ? {} : { header: scrubValue(view.header) as typeof view.header }),
    rows: view.rows.map(scrubRow),
    turns: view.turns.map((t) => ({ ...t, label: scrubText(t.label) })),
  };
}
