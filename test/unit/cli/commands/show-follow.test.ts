// The follow screen's keys: what each does to the view.
import { describe, expect, it } from 'vitest';
import { keyPress } from '../../../../src/cli/commands/show-follow.js';
import { INITIAL_VIEW } from '../../../../src/app/show/render/follow-frame.js';

const UP = '\x1b[A';
const DOWN = '\x1b[B';

describe('keyPress', () => {
  it('q and Ctrl-C quit', () => {
    expect(keyPress('q', INITIAL_VIEW, 3)).toBe('quit');
    expect(keyPress('\x03', INITIAL_VIEW, 3)).toBe('quit');
  });

  it('↑ picks the last row first, then earlier ones; ↓ past the last picks none again', () => {
    const up = keyPress(UP, INITIAL_VIEW, 3);
    expect(up).toMatchObject({ selected: 2 });
    const twice = keyPress(UP, up as typeof INITIAL_VIEW, 3);
    expect(twice).toMatchObject({ selected: 1 });
    expect(keyPress(UP, { ...INITIAL_VIEW, selected: 0 }, 3)).toMatchObject({ selected: 0 });
    expect(keyPress(DOWN, { ...INITIAL_VIEW, selected: 2, details: true }, 3)).toMatchObject({
      selected: null,
      details: false,
    });
    expect(keyPress(DOWN, INITIAL_VIEW, 3)).toBeNull();
    expect(keyPress(UP, INITIAL_VIEW, 0)).toBeNull();
  });

  it('Enter shows and hides the picked row’s details, and does nothing with none picked', () => {
    expect(keyPress('\r', INITIAL_VIEW, 3)).toBeNull();
    expect(keyPress('\r', { ...INITIAL_VIEW, selected: 1 }, 3)).toMatchObject({ details: true });
    expect(keyPress('\r', { ...INITIAL_VIEW, selected: 1, details: true }, 3)).toMatchObject({
      details: false,
    });
  });

  it('e and a toggle errors only and all agents open, dropping the pick', () => {
    expect(keyPress('e', { ...INITIAL_VIEW, selected: 1 }, 3)).toEqual({
      ...INITIAL_VIEW,
      errorsOnly: true,
    });
    expect(keyPress('a', { ...INITIAL_VIEW, expandAll: true }, 3)).toEqual(INITIAL_VIEW);
    expect(keyPress('x', INITIAL_VIEW, 3)).toBeNull();
  });
});
