import { describe, expect, it } from 'vitest';
import { nestsDeeperThan } from './json-depth.js';

/** JSON text `levels` deep: objects and arrays alternating, with some padding so short texts still get scanned. */
function nested(levels: number, pad = ''): string {
  let text = `"${pad}"`;
  for (let i = 0; i < levels; i++) text = i % 2 ? `{"k":${text}}` : `[${text}]`;
  return text;
}

describe('nestsDeeperThan', () => {
  it('counts object and array levels against the limit', () => {
    expect(nestsDeeperThan(nested(5, 'x'.repeat(40)), 5)).toBe(false);
    expect(nestsDeeperThan(nested(6, 'x'.repeat(40)), 5)).toBe(true);
    expect(nestsDeeperThan(nested(100_000), 1000)).toBe(true);
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    const tricky = JSON.stringify({ a: '[[[[[[[[[[{{{{{{{{{{', b: 'say \\"[[[[[[[[[[\\" \\\\', c: '"[[[[[[[[[[' });
    expect(JSON.parse(tricky)).toBeTruthy();
    expect(nestsDeeperThan(tricky, 2)).toBe(false);
    // A string ending in an escaped backslash closes there: the brackets after it count.
    const afterBackslash = JSON.stringify({ a: 'x\\', b: [[[[1]]]] });
    expect(nestsDeeperThan(afterBackslash, 4)).toBe(true);
    expect(nestsDeeperThan(afterBackslash, 5)).toBe(false);
  });

  it('counts sibling containers at their own level, not cumulatively', () => {
    const wide = JSON.stringify({ list: Array.from({ length: 500 }, () => ({ a: [1, { b: 2 }] })) });
    // {list: [{a: [1, {b}]}]}: five levels.
    expect(nestsDeeperThan(wide, 5)).toBe(false);
    expect(nestsDeeperThan(wide, 4)).toBe(true);
  });

  it('does not scan text too short to be that deep, and leaves an unterminated string to the parser', () => {
    expect(nestsDeeperThan('[[[[[[', 3)).toBe(false);
    expect(nestsDeeperThan('[[[[[[[[', 3)).toBe(true);
    expect(nestsDeeperThan(`{"a":"${'['.repeat(50)}`, 3)).toBe(false);
  });
});
