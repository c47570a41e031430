import { describe, expect, it } from 'vitest';
import { after, before } from '../test-support.js';
import { allLowercase } from './all-lowercase.js';

describe('default.allLowercase', () => {
  it('passes on lower-case text and fails on any upper-case letter', async () => {
    expect((await allLowercase.run(before('hello, world 42! été'), {})).verdict).toBe(true);
    expect((await allLowercase.run(before('hello World'), {})).verdict).toBe(false);
    expect((await allLowercase.run(after('fine'), {})).verdict).toBe(true);
    expect((await allLowercase.run(after('Élan'), {})).verdict).toBe(false);
  });

  it('rejects non-object parameters', () => {
    expect(() => allLowercase.validateParams('x', 'cfg.g')).toThrow(/cfg\.g: parameters must be an object/);
  });
});
