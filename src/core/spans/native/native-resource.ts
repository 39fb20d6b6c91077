// What Claude Code's resource says of a session (its Monitoring page, "Service
// information"): service.name is claude-code-desktop for sessions started from
// Claude Desktop. That comes from the transcript, so it differs from session to
// session: a batch holds turns of one variant only (export's batches, the
// daemon's pulls). service.version (the Claude Code version) is not made a
// variant: it changes from session to session often enough to split a run
// over history into one request per session (docs/benchmarks.md).
import type { Turn } from '../../model/session-model.js';

export interface ResourceVariant {
  /** Tells variants apart (what a batch is split by). */
  key: string;
  /** Started from Claude Desktop (its own entrypoints). */
  desktop: boolean;
}

/** The entrypoints Claude Desktop starts a session from, as the Monitoring page names them. */
const DESKTOP_ENTRYPOINTS = new Set(['claude-desktop', 'claude-desktop-3p', 'local-agent']);

export function resourceVariantOf(turn: Turn): ResourceVariant {
  const desktop = turn.entrypoint !== null && DESKTOP_ENTRYPOINTS.has(turn.entrypoint);
  return { key: desktop ? 'desktop' : 'cli', desktop };
}

/** The run's resource attributes with the variant laid over them. */
export function variantAttributes(
  base: Record<string, unknown>,
  variant: ResourceVariant,
): Record<string, unknown> {
  const out = { ...base };
  // Only over the default name: a name the user chose stays.
  if (variant.desktop && out['service.name'] === 'claude-code')
    out['service.name'] = 'claude-code-desktop';
  return out;
}
