import { describe, expect, it } from 'vitest';
import { filterToolList, toolAllowed } from './tool-filter.js';

describe('tool filter', () => {
  it('allows everything without lists, only `allow` with one, never `deny`', () => {
    expect(toolAllowed({}, 'a')).toBe(true);
    expect(toolAllowed({ allow: ['a'] }, 'a')).toBe(true);
    expect(toolAllowed({ allow: ['a'] }, 'b')).toBe(false);
    expect(toolAllowed({ deny: ['a'] }, 'a')).toBe(false);
    expect(toolAllowed({ deny: ['a'] }, 'b')).toBe(true);
    expect(toolAllowed({ allow: ['a', 'b'], deny: ['b'] }, 'b')).toBe(false);
  });

  it('filters a tools/list result and keeps its other members', () => {
    const out = filterToolList({ deny: ['rm'] }, { tools: [{ name: 'ls' }, { name: 'rm' }], nextCursor: 'c' });
    expect(out).toEqual({ result: { tools: [{ name: 'ls' }], nextCursor: 'c' } });
  });

  it('refuses two upstream tools of one name', () => {
    expect(filterToolList({}, { tools: [{ name: 'ls' }, { name: 'ls' }] }).collision).toBe('ls');
  });
});
