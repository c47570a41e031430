import { describe, expect, it } from 'vitest';
import { after, before } from '../test-support.js';
import { countWords, wordCount } from './word-count.js';

describe('default.wordCount', () => {
  it('counts whitespace-separated words', () => {
    expect(countWords('  one two\nthree\tfour ')).toBe(4);
    expect(countWords('   ')).toBe(0);
  });

  it('passes within the bounds and fails outside them', async () => {
    expect((await wordCount.run(before('one two three'), { minWords: 2, maxWords: 3 })).verdict).toBe(true);
    expect((await wordCount.run(before('one'), { minWords: 2, maxWords: 3 })).verdict).toBe(false);
    const r = await wordCount.run(after('a b c d'), { maxWords: 3 });
    expect(r.verdict).toBe(false);
    expect(r.data).toMatchObject({ count: 4 });
  });

  it('rejects bad parameters', () => {
    expect(() => wordCount.validateParams({ minWords: -1 })).toThrow(/minWords: must be between 0/);
    expect(() => wordCount.validateParams({ minWords: 1.5 })).toThrow(/minWords: must be a whole number/);
    expect(() => wordCount.validateParams({ minWords: 5, maxWords: 2 })).toThrow(/maxWords: must be greater than or equal to minWords/);
  });
});
