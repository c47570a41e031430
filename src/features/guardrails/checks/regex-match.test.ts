import { describe, expect, it } from 'vitest';
import { after, before, thrown } from '../test-support.js';
import { regexMatch } from './regex-match.js';

describe('default.regexMatch', () => {
  it('passes when the request text matches and fails when it does not', async () => {
    expect((await regexMatch.run(before('order #12345 please'), { rule: '#\\d{5}' })).verdict).toBe(true);
    expect((await regexMatch.run(before('no order number'), { rule: '#\\d{5}' })).verdict).toBe(false);
  });

  it('inverts with not: true', async () => {
    expect((await regexMatch.run(before('password: hunter2'), { rule: 'password', not: true })).verdict).toBe(false);
    expect((await regexMatch.run(before('hello'), { rule: 'password', not: true })).verdict).toBe(true);
  });

  it('reads the response text after the request, and accepts /pattern/flags', async () => {
    const r = await regexMatch.run(after('HELLO there'), { rule: '/^hello/i' });
    expect(r.verdict).toBe(true);
    expect(r.data).toMatchObject({ match: 'HELLO' });
    expect((await regexMatch.run(after('bye'), { rule: '/^hello/i' })).verdict).toBe(false);
  });

  it('rejects bad parameters naming the parameter', () => {
    expect(() => regexMatch.validateParams({}, 'cfg.x')).toThrow(/cfg\.x\.rule: is required/);
    expect(() => regexMatch.validateParams({ rule: '(' })).toThrow(/default\.regexMatch\.rule: is not a valid regular expression/);
    expect(() => regexMatch.validateParams({ rule: 'a', not: 'yes' })).toThrow(/\.not: must be a boolean/);
    expect(thrown(() => regexMatch.validateParams({ rule: 5 }, 'p'))).toMatchObject({
      code: 'invalid_config',
      status: 400,
      param: 'p.rule',
    });
  });
});
