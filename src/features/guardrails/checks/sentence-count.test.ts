import { describe, expect, it } from 'vitest';
import { after, before } from '../test-support.js';
import { countSentences, sentenceCount } from './sentence-count.js';

describe('default.sentenceCount', () => {
  it('counts sentences', () => {
    expect(countSentences('Hello there. How are you? Fine!')).toBe(3);
    expect(countSentences('No punctuation at all')).toBe(1);
    expect(countSentences('Version 1.5 is out. ...')).toBe(1);
    expect(countSentences('')).toBe(0);
  });

  it('passes within the bounds and fails outside them', async () => {
    expect((await sentenceCount.run(before('One. Two.'), { minSentences: 1, maxSentences: 2 })).verdict).toBe(true);
    expect((await sentenceCount.run(before('One. Two. Three.'), { maxSentences: 2 })).verdict).toBe(false);
    expect((await sentenceCount.run(after('Just one.'), { minSentences: 2 })).verdict).toBe(false);
  });

  it('rejects bad parameters', () => {
    expect(() => sentenceCount.validateParams({ maxSentences: 'two' })).toThrow(
      /default\.sentenceCount\.maxSentences: must be a whole number/,
    );
    expect(() => sentenceCount.validateParams({ minSentences: 3, maxSentences: 1 })).toThrow(/maxSentences/);
  });
});
