// A set of the uuids a session has seen, in 16 bytes each. A session read in
// segments keeps this set for its whole length (a line repeated far later is
// still a duplicate): as a Set<string> it cost five times as much per uuid,
// which adds up over a transcript of gigabytes. Canonical uuids are stored as their 128 bits in an
// open-addressed table of Int32 words; anything else falls back to a Set.
// Exact: no fingerprint, so no false duplicate can ever drop a line.

/** Value of a hex digit's char code, or -1. */
function nibble(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 97 && code <= 102) return code - 87;
  return -1;
}

/**
 * Fills `out` with the four 32-bit words of a canonical lower-case uuid and
 * returns true, or returns false for any other string. (A regex test and
 * four parseInt calls per line showed in a conversion's profile.)
 */
function wordsOf(uuid: string, out: Int32Array): boolean {
  if (uuid.length !== 36) return false;
  let word = 0;
  let digits = 0;
  for (let i = 0; i < 36; i++) {
    const code = uuid.charCodeAt(i);
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (code !== 45) return false;
      continue;
    }
    const n = nibble(code);
    if (n < 0) return false;
    word = (word << 4) | n;
    digits += 1;
    if ((digits & 7) === 0) {
      out[(digits >> 3) - 1] = word;
      word = 0;
    }
  }
  return true;
}

/** Slot of a uuid's words: all four mixed in, so ids that differ in any word spread. */
function slotOf(a: number, b: number, c: number, d: number, slots: number): number {
  let h = Math.imul(a, 0x9e3779b1) ^ Math.imul(b, 0x85ebca6b) ^ Math.imul(c, 0xc2b2ae35) ^ d;
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d);
  return ((h ^ (h >>> 15)) >>> 0) & (slots - 1);
}

/**
 * Slots a new set starts with. A session has a few hundred uuids on average:
 * a table sized for thousands (zeroed on creation) cost more, over thousands
 * of small sessions, than growing the few large ones.
 */
const INITIAL_SLOTS = 64;

/**
 * The words of the value looked up last, shared by every set (lookups are
 * synchronous): a reader asks `has` and then `add` of the same uuid, and a
 * typed array per set cost more than the set's table on small sessions.
 */
const key = new Int32Array(4);
let keyOf: string | null = null;
let keyIsUuid = false;

export class UuidSet {
  /** 4 words per slot; a slot of four zero words is empty (the nil uuid is kept apart). */
  private table = new Int32Array(4 * INITIAL_SLOTS);
  private count = 0;
  private hasNil = false;
  private readonly others = new Set<string>();

  get size(): number {
    return this.count + (this.hasNil ? 1 : 0) + this.others.size;
  }

  has(value: string): boolean {
    return this.visit(value, false);
  }

  add(value: string): this {
    this.visit(value, true);
    return this;
  }

  /** Looks the value up, inserting it when `insert`; returns whether it was there. */
  private visit(value: string, insert: boolean): boolean {
    const k = key;
    if (value !== keyOf) {
      keyOf = value;
      keyIsUuid = wordsOf(value, k);
    }
    if (!keyIsUuid) {
      const had = this.others.has(value);
      if (insert && !had) this.others.add(value);
      return had;
    }
    const a = k[0] ?? 0;
    const b = k[1] ?? 0;
    const c = k[2] ?? 0;
    const d = k[3] ?? 0;
    if ((a | b | c | d) === 0) {
      const had = this.hasNil;
      if (insert) this.hasNil = true;
      return had;
    }
    const table = this.table;
    const mask = (table.length >> 2) - 1;
    let at = slotOf(a, b, c, d, mask + 1) << 2;
    for (;;) {
      const w0 = table[at] ?? 0;
      const w1 = table[at + 1] ?? 0;
      const w2 = table[at + 2] ?? 0;
      const w3 = table[at + 3] ?? 0;
      if ((w0 | w1 | w2 | w3) === 0) break;
      // One expression, all four words compared every time: with `&&` the
      // later words went unread until a first match (a duplicate line), whose
      // deoptimisation and second compile of visit() cost more than the reads.
      if (((w0 ^ a) | (w1 ^ b) | (w2 ^ c) | (w3 ^ d)) === 0) return true;
      at = (at + 4) & ((mask << 2) | 3);
    }
    if (!insert) return false;
    table[at] = a;
    table[at + 1] = b;
    table[at + 2] = c;
    table[at + 3] = d;
    this.count += 1;
    if (this.count * 2 > mask + 1) this.grow();
    return false;
  }

  private grow(): void {
    const old = this.table;
    const table = new Int32Array(old.length * 2);
    const slots = table.length >> 2;
    for (let from = 0; from < old.length; from += 4) {
      const a = old[from] ?? 0;
      const b = old[from + 1] ?? 0;
      const c = old[from + 2] ?? 0;
      const d = old[from + 3] ?? 0;
      if ((a | b | c | d) === 0) continue;
      let at = slotOf(a, b, c, d, slots) << 2;
      while (
        ((table[at] ?? 0) | (table[at + 1] ?? 0) | (table[at + 2] ?? 0) | (table[at + 3] ?? 0)) !==
        0
      )
        at = (at + 4) & (table.length - 1);
      table[at] = a;
      table[at + 1] = b;
      table[at + 2] = c;
      table[at + 3] = d;
    }
    this.table = table;
  }
}
