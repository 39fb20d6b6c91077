// The directory watcher's decisions taken alone: which failed watches are told
// (a watch limit once, anything else each time), which events in a missing
// root's ancestor may bring the root closer, and the trailing change that
// follows a burst of events on a file (restarted by each event).
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { reportLimitsOnce } from '../../../../src/adapters/fswatch/dir-watcher.js';
import { mattersToRoot } from '../../../../src/adapters/fswatch/root-anchors.js';
import { TrailingChanges } from '../../../../src/adapters/fswatch/trailing-changes.js';

const failure = (code: string): Error =>
  Object.assign(new Error(`watch failed: ${code}`), { code });

describe('reportLimitsOnce', () => {
  it('tells each watch limit (ENOSPC, EMFILE) once, and every other failure each time', () => {
    const told: string[] = [];
    const report = reportLimitsOnce((e) => told.push(e.message));
    for (const code of ['ENOSPC', 'EACCES', 'ENOSPC', 'EMFILE', 'EACCES', 'EMFILE', 'ENOSPC'])
      report(failure(code));
    expect(told).toEqual([
      'watch failed: ENOSPC',
      'watch failed: EACCES',
      'watch failed: EMFILE',
      'watch failed: EACCES',
    ]);
  });

  it('turns what is not an Error into one', () => {
    const told: Error[] = [];
    reportLimitsOnce((e) => told.push(e))('no such thing');
    expect(told.map((e) => [e instanceof Error, e.message])).toEqual([[true, 'no such thing']]);
  });
});

describe('mattersToRoot', () => {
  const at = join('/home', 'dev');
  const root = join(at, '.claude', 'projects');

  it('takes the next dir on the way down, the ancestor itself, and an unnamed event', () => {
    expect(mattersToRoot(root, at, '.claude')).toBe(true);
    expect(mattersToRoot(root, at, 'dev')).toBe(true);
    expect(mattersToRoot(root, at, null)).toBe(true);
  });

  it('ignores the ancestor’s other entries, names that only begin like the next dir included', () => {
    expect(mattersToRoot(root, at, 'notes.txt')).toBe(false);
    expect(mattersToRoot(root, at, '.claude-old')).toBe(false);
  });
});

describe('TrailingChanges', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('fires once per path, the delay after its last event; cancelAll drops what is pending', () => {
    vi.useFakeTimers();
    const due: string[] = [];
    const trailing = new TrailingChanges(60, (path) => due.push(path));
    trailing.schedule('a');
    vi.advanceTimersByTime(40);
    trailing.schedule('a');
    trailing.schedule('b');
    vi.advanceTimersByTime(59);
    expect(due).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(due).toEqual(['a', 'b']);
    trailing.schedule('c');
    trailing.cancelAll();
    vi.advanceTimersByTime(1000);
    expect(due).toEqual(['a', 'b']);
  });
});
