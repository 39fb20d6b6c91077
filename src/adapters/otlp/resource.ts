// The OTLP resource every span shares: service.name (default claude-code,
// OTEL_SERVICE_NAME), host.name, OTEL_RESOURCE_ATTRIBUTES and --resource k=v
// (later wins). One object for all spans: the serializer groups by identity.
import { createRequire } from 'node:module';
import { hostname } from 'node:os';
import type { Resource } from '@opentelemetry/resources';
import { UserError } from '../../core/user-error.js';

// @opentelemetry/resources (with its detectors, api, core and semantic
// conventions) is loaded when a resource is first built, not with this
// module: its loading is a large share of start-up, and a dry run needs no resource, nor
// does the config loader, which imports parseKeyValueList from here.
const require = createRequire(import.meta.url);
const resources = (): typeof import('@opentelemetry/resources') =>
  require('@opentelemetry/resources');

export const DEFAULT_SERVICE_NAME = 'claude-code';

/** Parses `k=v,k2=v2` (values percent-decoded, as the OTel spec says). */
export function parseKeyValueList(text: string, what: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of text.split(',')) {
    if (part.trim() === '') continue;
    const eq = part.indexOf('=');
    if (eq <= 0) throw new UserError(`${what}: expected key=value, got '${part.trim()}'`, 'usage');
    const key = part.slice(0, eq).trim();
    let value = part.slice(eq + 1).trim();
    try {
      value = decodeURIComponent(value);
    } catch {
      throw new UserError(`${what}: bad percent-encoding in value of '${key}'`, 'usage');
    }
    out[key] = value;
  }
  return out;
}

export interface ResourceSettings {
  serviceName: string;
  attributes: Record<string, string>;
}

/** The attributes the resource is built from (what it says, without loading the package). */
export const resourceAttributes = (settings: ResourceSettings): Record<string, string> => ({
  'host.name': hostname(),
  ...settings.attributes,
  'service.name': settings.serviceName,
});

export function buildResource(settings: ResourceSettings): Resource {
  return resources().resourceFromAttributes(resourceAttributes(settings));
}

/** A resource, or how to build it when first needed (a run that sends nothing loads no package). */
export type ResourceSource = Resource | (() => Resource);

/** Builds the resource on first call, the same object after. */
export function lazyResource(settings: ResourceSettings): () => Resource {
  let built: Resource | null = null;
  return () => (built ??= buildResource(settings));
}

export const resourceOfSource = (source: ResourceSource): Resource =>
  typeof source === 'function' ? source() : source;

const variants = new WeakMap<Resource, Map<string, Resource>>();

/** The resource with attributes laid over it, one object per key (encoders cache by object). */
export function resourceWith(
  base: Resource,
  key: string,
  attributes: () => Record<string, unknown>,
): Resource {
  let byKey = variants.get(base);
  if (byKey === undefined) {
    byKey = new Map();
    variants.set(base, byKey);
  }
  let made = byKey.get(key);
  if (made === undefined) {
    made = resources().resourceFromAttributes(attributes() as Record<string, string>);
    byKey.set(key, made);
  }
  return made;
}
