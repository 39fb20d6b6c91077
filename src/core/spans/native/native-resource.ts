// What Claude Code's resource says of a session (its Monitoring page, "Service
// information"): service.version is the Claude Code version, and service.name
// is claude-code-desktop for sessions started from Claude Desktop. Both come
// from the transcript, so they differ from session to session: a batch holds
// turns of one variant only (export's batches, the daemon's pulls).
import type { Turn } from '../../model/session-model.js';

export interface ResourceVariant {
  /** Tells variants apart (what a batch is split by). */
  key: string;
  /** Claude Code's version, as its prompt line wrote it. */
  version: string | null;
  /** Started from Claude Desktop (its own entrypoints). */
  desktop: boolean;
}

/** The entrypoints Claude Desktop starts a session from, as the Monitoring page names them. */
const DESKTOP_ENTRYPOINTS = new Set(['claude-desktop', 'claude-desktop-3p', 'local-agent']);

export function resourceVariantOf(turn: Turn): ResourceVariant {
  const desktop = turn.entrypoint !== null && DESKTOP_ENTRYPOINTS.has(turn.entrypoint);
  return { key: `${turn.version ?? ''}|${desktop ? 'd' : ''}`, version: turn.version, desktop };
}

/** The run's resource attributes with the variant laid over them. */
export function variantAttributes(
  base: Record<string, unknown>,
  variant: ResourceVariant,
): Record<string, unknown> {
  const out = { ...base };
  if (variant.version !== null) out['service.version'] = variant.version;
  // Only over the default name: a name the user chose stays.
  if (variant.desktop && out['service.name'] === 'claude-code')
    out['service.name'] = 'claude-code-desktop';
  return out;
}
