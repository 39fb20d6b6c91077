// Types for prng.mjs, so the TypeScript tests can use the same generator.
export function mulberry32(seed: number): () => number;
