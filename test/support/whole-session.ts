// Test oracles: a session read whole (no segments, no cuts) through the same
// reader the commands use, and its spans. Export, show and the daemon read in
// segments or fold history away; these are what they must equal.
import { finish, wholeSession } from '../../src/core/model/assemble/finish.js';
import { sessionCostWarning } from '../../src/core/cost/cost-state.js';
import type { ParseOptions } from '../../src/core/transcript/parse-record.js';
import { windowsOf, type PriceTable } from '../../src/core/cost/pricing.js';
import { createSessionReader } from '../../src/core/session/reader.js';
import type { SessionModel } from '../../src/core/model/session-model.js';
import type { SessionState } from '../../src/core/session/state.js';
import type { SpanOptions } from '../../src/core/spans/data.js';
import type { SessionFiles } from '../../src/adapters/files/session-files.js';
import { foldFile, openSession } from '../../src/app/read/read-session.js';
import {
  parseOptionsFor,
  SessionSpansRead,
  spansOfModel,
  ENCODE_ALL,
  type ProtobufTurn,
  type StreamedSession,
  type TurnFor,
  type TurnNeed,
} from '../../src/app/read/session-spans.js';
import type { SinkForm } from '../../src/app/deliver/span-batch.js';
import type { SegmentReadOptions } from '../../src/app/read/read-session.js';

export interface LoadedSession {
  state: SessionState;
  /** Files whose last line is still being written (not consumed). */
  unterminated: string[];
  /** For each of those files, the number of that unfinished last line. */
  unterminatedLine: Map<string, number>;
}

/** Every file of the session folded into one state: main file first, then each agent file. */
export async function loadSession(
  files: SessionFiles,
  parse: ParseOptions = {},
): Promise<LoadedSession> {
  const reader = createSessionReader(openSession(files), wholeSession());
  const unterminatedLine = new Map<string, number>();
  for (const { file, agentId } of [
    { file: files.mainFile, agentId: null },
    ...files.agentFiles.map((a) => ({ file: a.file, agentId: a.agentId })),
  ]) {
    const line = await foldFile(reader, file, agentId, parse);
    if (line > 0) unterminatedLine.set(file, line);
  }
  return { state: reader.state, unterminated: [...unterminatedLine.keys()], unterminatedLine };
}

export interface SessionSpans {
  model: SessionModel;
  turns: ProtobufTurn[];
  unknownModels: string[];
  unterminated: string[];
}

/** The whole session's spans, every turn, in the model's order. */
export async function sessionSpans(
  files: SessionFiles,
  prices: PriceTable,
  options: SpanOptions,
): Promise<SessionSpans> {
  const loaded = await loadSession(files, parseOptionsFor(options));
  const model = finish(loaded.state, windowsOf(prices));
  const { turns, unknownModels, costs } = spansOfModel(model, prices, options);
  // The cost-state warning needs prices: export adds it after the linking ones.
  const cost = sessionCostWarning(model, costs.byResponse);
  if (cost !== null) model.warnings = [...model.warnings, cost];
  return { model, turns, unknownModels, unterminated: loaded.unterminated };
}

/**
 * The session's spans as export reads them, a segment at a time, handed to
 * onTurns; false from it stops the reading (`stopped` then says so).
 */
export async function streamSessionSpans<F extends SinkForm = 'protobuf'>(
  files: SessionFiles,
  prices: PriceTable,
  options: SpanOptions,
  onTurns: (turns: TurnFor<F>[]) => void | boolean | Promise<void | boolean>,
  segments: Omit<SegmentReadOptions, 'parse'> = {},
  need: TurnNeed<F> = ENCODE_ALL as TurnNeed<F>,
): Promise<StreamedSession & { stopped: boolean }> {
  const read = new SessionSpansRead<F>(files, prices, options, segments, need);
  let stopped = false;
  for await (const turns of read.turns()) {
    if ((await onTurns(turns)) === false) {
      stopped = true;
      break;
    }
  }
  return { ...read.summary(), stopped };
}
