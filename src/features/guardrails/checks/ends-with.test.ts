import { describe, expect, it } from 'vitest';
import { after, before } from '../test-support.js';
import { endsWith } from './ends-with.js';

describe('default.endsWith', () => {
  it('passes when the text ends with the suffix, ignoring trailing whitespace', async () => {
    expect((await endsWith.run(after('Answer. END\n'), { suffix: 'END' })).verdict).toBe(true);
    expect((await endsWith.run(before('Question?'), { suffix: '?' })).verdict).toBe(true);
  });

  it('fails otherwise (case-sensitive)', async () => {
    expect((await endsWith.run(after('Answer. end'), { suffix: 'END' })).verdict).toBe(false);
    expect((await endsWith.run(after('END of story'), { suffix: 'END' })).verdict).toBe(false);
  });

  it('rejects bad parameters', () => {
    expect(() => endsWith.validateParams({})).toThrow(/default\.endsWith\.suffix: is required/);
    expect(() => endsWith.validateParams({ suffix: '' })).toThrow(/suffix: must not be empty/);
  });
});
