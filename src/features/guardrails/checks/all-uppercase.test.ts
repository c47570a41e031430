import { describe, expect, it } from 'vitest';
import { after, before } from '../test-support.js';
import { allUppercase } from './all-uppercase.js';

describe('default.allUppercase', () => {
  it('passes on upper-case text (digits and punctuation ignored) and fails on any lower-case letter', async () => {
    expect((await allUppercase.run(before('HELLO, WORLD 42! ÉTÉ'), {})).verdict).toBe(true);
    expect((await allUppercase.run(before('HELLO World'), {})).verdict).toBe(false);
    expect((await allUppercase.run(after('ÉTé'), {})).verdict).toBe(false);
  });

  it('rejects non-object parameters', () => {
    expect(() => allUppercase.validateParams([1])).toThrow(/default\.allUppercase: parameters must be an object/);
  });
});
