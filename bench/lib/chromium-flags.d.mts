// Types for chromium-flags.mjs, so test/support/chromium.ts can share the flags.
export const CHROMIUM: string;
export const CHROMIUM_ARGS: readonly string[];
