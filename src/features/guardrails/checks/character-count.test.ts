import { describe, expect, it } from 'vitest';
import { after, before } from '../test-support.js';
import { characterCount } from './character-count.js';

describe('default.characterCount', () => {
  it('counts code points, not UTF-16 units', async () => {
    const r = await characterCount.run(before('héllo 👋'), { minCharacters: 7, maxCharacters: 7 });
    expect(r.verdict).toBe(true);
    expect(r.data).toMatchObject({ count: 7 });
  });

  it('fails outside the bounds', async () => {
    expect((await characterCount.run(before('abc'), { minCharacters: 4 })).verdict).toBe(false);
    expect((await characterCount.run(after('abcdef'), { maxCharacters: 5 })).verdict).toBe(false);
    expect((await characterCount.run(after('abcde'), { maxCharacters: 5 })).verdict).toBe(true);
  });

  it('rejects bad parameters', () => {
    expect(() => characterCount.validateParams({ maxCharacters: -3 })).toThrow(/maxCharacters: must be between/);
    expect(() => characterCount.validateParams({ minCharacters: 10, maxCharacters: 1 })).toThrow(/maxCharacters: must be greater/);
  });
});
