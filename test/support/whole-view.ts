// Test oracle: the view of a whole session in one piece, what show's
// segmented view (segmented-view.ts) must equal.
import { sessionHeaderOf } from '../../src/core/view/session-header.js';
import type { PriceTable } from '../../src/core/cost/pricing.js';
import type { SessionModel } from '../../src/core/model/session-model.js';
import { assembleView, viewPart } from '../../src/app/show/build-view.js';
import { sessionCostWarning } from '../../src/core/cost/cost-state.js';
import type { WaterfallView } from '../../src/app/show/render/waterfall-view.js';

export function buildView(
  model: SessionModel,
  prices: PriceTable,
): { view: WaterfallView; unknownModels: string[] } {
  const part = viewPart(model, prices, 0);
  // The cost-state warning needs prices: show adds it after the linking ones.
  const cost = sessionCostWarning(model, part.byResponse);
  return {
    view: assembleView(
      model.sessionId,
      sessionHeaderOf(model),
      part.rows,
      part.turns,
      cost === null ? model.warnings : [...model.warnings, cost],
    ),
    unknownModels: part.unknownModels,
  };
}
