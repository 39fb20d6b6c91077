// How far V8 lets the heap grow past what survived its last full collection
// before it collects again. By default it picks a factor of up to 4 from its
// GC speed against the rate at which objects reach the old generation.
// Exporting a large transcript kept little alive at every full collection but
// let the heap grow several times over in between: the peak RSS of export was
// garbage, not anything it held (docs/benchmarks.md, Memory). V8 reads this
// flag at every full collection, so setting it at run time takes effect.
//
// node:v8 is loaded on first use: importing it (with the heap-snapshot and
// stream modules it pulls in) is a cost that small sessions, which never limit
// the heap, need not pay.

/** Growth allowed past the live heap, in percent (100: the heap may double before the next full collection). */
export const HEAP_GROWTH_PERCENT = 100;

export function limitHeapGrowth(percent = HEAP_GROWTH_PERCENT): void {
  process.getBuiltinModule('node:v8').setFlagsFromString(`--heap-growing-percent=${percent}`);
}
