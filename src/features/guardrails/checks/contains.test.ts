import { describe, expect, it } from 'vitest';
import { after, before } from '../test-support.js';
import { contains } from './contains.js';

describe('default.contains', () => {
  const text = 'The Secret code is hidden in the classroom.';

  it('any: passes when one word is present (case-insensitive substring)', async () => {
    expect((await contains.run(before(text), { operator: 'any', words: ['secret', 'nope'] })).verdict).toBe(true);
    expect((await contains.run(before(text), { words: ['CLASS', 'nope'] })).verdict).toBe(true);
    expect((await contains.run(before(text), { words: ['password', 'nope'] })).verdict).toBe(false);
  });

  it('all: passes only when every word is present', async () => {
    expect((await contains.run(before(text), { operator: 'all', words: ['secret', 'code'] })).verdict).toBe(true);
    const r = await contains.run(before(text), { operator: 'all', words: ['secret', 'password'] });
    expect(r.verdict).toBe(false);
    expect(r.data).toMatchObject({ found: ['secret'], missing: ['password'] });
  });

  it('none: fails when a word is present', async () => {
    expect((await contains.run(before(text), { operator: 'none', words: ['secret'] })).verdict).toBe(false);
    expect((await contains.run(before('all clear'), { operator: 'none', words: ['secret'] })).verdict).toBe(true);
  });

  it('matches words with punctuation and reads the response after the request', async () => {
    expect((await contains.run(after('call C++ now'), { words: ['c++'] })).verdict).toBe(true);
    expect((await contains.run(after('nothing here'), { words: ['REQUEST'] })).verdict).toBe(false);
  });

  it('rejects bad parameters', () => {
    expect(() => contains.validateParams({ operator: 'some', words: ['a'] })).toThrow(
      /default\.contains\.operator: must be one of any, all, none/,
    );
    expect(() => contains.validateParams({ words: [] })).toThrow(/\.words: must be a non-empty array/);
    expect(() => contains.validateParams({ words: ['a', 3] })).toThrow(/\.words\[1\]: must be a non-empty string/);
    expect(() => contains.validateParams({})).toThrow(/\.words: is required/);
    expect(() => contains.validateParams('x')).toThrow(/parameters must be an object/);
  });
});
