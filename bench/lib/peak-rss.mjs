// The measured process's own peak resident set, in MB.
// Not getrusage's maxRSS: Linux carries the parent's resident set across
// fork and exec into it, so a child spawned by a bench process holding 127 MB
// (the previous run's --out file, read to hash it) reported at least 127 MB
// whatever it used (measured: a child of a parent holding 300 MB reads
// maxRSS 290 MB, VmHWM 40 MB). /proc's VmHWM belongs to the address space
// exec made, so it is the process's own; maxRSS is the fallback off Linux.
import { readFileSync } from 'node:fs';

export function peakRssMB() {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    if (kb !== undefined) return Number(kb) / 1024;
  } catch {
    // No /proc: fall through to getrusage.
  }
  return process.resourceUsage().maxRSS / 1024;
}
