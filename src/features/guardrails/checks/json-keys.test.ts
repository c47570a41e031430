import { describe, expect, it } from 'vitest';
import { after } from '../test-support.js';
import { jsonKeys } from './json-keys.js';

describe('default.jsonKeys', () => {
  const answer = 'Sure: {"title": "x", "tags": ["a"]}';

  it('any / all / none over the keys of the JSON object', async () => {
    expect((await jsonKeys.run(after(answer), { keys: ['title', 'body'], operator: 'any' })).verdict).toBe(true);
    expect((await jsonKeys.run(after(answer), { keys: ['title', 'body'], operator: 'all' })).verdict).toBe(false);
    expect((await jsonKeys.run(after(answer), { keys: ['title', 'tags'], operator: 'all' })).verdict).toBe(true);
    expect((await jsonKeys.run(after(answer), { keys: ['password'], operator: 'none' })).verdict).toBe(true);
    expect((await jsonKeys.run(after(answer), { keys: ['title'], operator: 'none' })).verdict).toBe(false);
  });

  it('passes when any of several JSON objects satisfies the operator; fails without JSON', async () => {
    expect((await jsonKeys.run(after('{"a":1} and {"b":2}'), { keys: ['b'], operator: 'all' })).verdict).toBe(true);
    const r = await jsonKeys.run(after('plain text'), { keys: ['a'], operator: 'none' });
    expect(r.verdict).toBe(false);
    expect(r.explanation).toMatch(/No JSON object/);
  });

  it('rejects bad parameters', () => {
    expect(() => jsonKeys.validateParams({ keys: 'a' })).toThrow(/default\.jsonKeys\.keys: must be a non-empty array/);
    expect(() => jsonKeys.validateParams({ keys: ['a'], operator: 'every' })).toThrow(/operator: must be one of/);
  });
});
