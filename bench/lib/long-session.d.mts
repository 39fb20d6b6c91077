// Types for long-session.mjs, so the TypeScript tests can use the generator.
export interface LongSessionOptions {
  dir: string;
  turns?: number;
  callsPerTurn?: number;
  seed?: number;
  start?: string;
  agentEvery?: number;
  errorEvery?: number;
}

export interface LongSession {
  file: string;
  sessionId: string;
  turns: number;
  calls: number;
}

export function writeLongSession(options: LongSessionOptions): LongSession;
