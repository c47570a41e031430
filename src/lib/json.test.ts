import { describe, expect, it } from 'vitest';
import { UNKNOWN_MEMBER, topLevelBounds, topLevelMember, topLevelMembers } from './json.js';
import { JsonAnswer } from '../routing/outcome.js';

const b = (s: string) => Buffer.from(s, 'utf8');

describe('topLevelMember', () => {
  it('finds a top-level member as JSON.parse would, skipping strings and nested members', () => {
    const answer = {
      id: 'x',
      choices: [{ message: { content: 'say "usage": {"total_tokens": 9} {[ ]}\\ é', usage: { total_tokens: 1 } } }],
      n: -1.5e3,
      ok: true,
      none: null,
      usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7, details: { cached: [1, 2] } },
    };
    for (const text of [JSON.stringify(answer), JSON.stringify(answer, null, 2)]) {
      expect(topLevelMember(b(text), 'usage')).toEqual(answer.usage);
      expect(topLevelMember(b(text), 'n')).toBe(-1500);
      expect(topLevelMember(b(text), 'none')).toBeNull();
      expect(topLevelMember(b(text), 'missing')).toBeUndefined();
    }
    expect(topLevelMember(b('{"usage":1,"usage":{"a":2}}'), 'usage')).toEqual({ a: 2 });
    expect(topLevelMember(b(' {} '), 'usage')).toBeUndefined();
    expect(topLevelMember(b(JSON.stringify({ a: 1 })).subarray(0), 'a')).toBe(1);
  });

  it('gives up (UNKNOWN_MEMBER) on what it cannot walk', () => {
    expect(topLevelMember(b('[1,2]'), 'usage')).toBe(UNKNOWN_MEMBER);
    expect(topLevelMember(b('{"us\\u0061ge":{"a":1}}'), 'usage')).toBe(UNKNOWN_MEMBER);
    expect(topLevelMember(b('{"usage":{"a":1}'), 'usage')).toBe(UNKNOWN_MEMBER);
    expect(topLevelMember(b('{"usage" {"a":1}}'), 'usage')).toBe(UNKNOWN_MEMBER);
    expect(topLevelMember(b('not json'), 'usage')).toBe(UNKNOWN_MEMBER);
  });
});

describe('topLevelMembers', () => {
  it('reads several members in one walk, in the order asked, as topLevelMember reads each', () => {
    const text = JSON.stringify({ id: 'c-1', model: 'm', choices: [{ index: 0, finish_reason: 'stop', message: { content: '"id": 2' } }], usage: { total_tokens: 5 }, id2: 3 });
    expect(topLevelMembers(b(text), ['usage', 'id', 'missing', 'choices'])).toEqual([{ total_tokens: 5 }, 'c-1', undefined, [{ index: 0, finish_reason: 'stop', message: { content: '"id": 2' } }]]);
    expect(topLevelMembers(b('{"a":1,"a":2}'), ['a'])).toEqual([2]);
    expect(topLevelMembers(b('{}'), ['a', 'b'])).toEqual([undefined, undefined]);
    expect(topLevelMembers(b('{"a":1'), ['a'])).toBe(UNKNOWN_MEMBER);
  });

  it('topLevelBounds: where the values lie, without parsing them (the last of duplicates)', () => {
    const text = '{"choices": [ ], "usage":{"t":1}, "n": -2, "usage" : [3]}';
    const found = topLevelBounds(b(text), ['usage', 'choices', 'n', 'missing']);
    expect(found).not.toBe(UNKNOWN_MEMBER);
    const [usage, choices, n, missing] = found as Array<[number, number] | undefined>;
    expect(text.slice(...usage!)).toBe('[3]');
    expect(text.slice(...choices!)).toBe('[ ]');
    expect(text.slice(...n!)).toBe('-2');
    expect(missing).toBeUndefined();
    expect(topLevelBounds(b('{"a":[1}'), ['a'])).toBe(UNKNOWN_MEMBER);
  });

  it('is what a JsonAnswer reads its members with: each read once, forgotten when the answer is replaced', () => {
    const answer = new JsonAnswer({ raw: b('{"id":"x","usage":{"total_tokens":2}}') });
    expect(answer.members(['id', 'usage'])).toEqual(['x', { total_tokens: 2 }]);
    expect(answer.member('usage')).toBe(answer.member('usage'));
    answer.replace({ id: 'y' });
    expect(answer.members(['id', 'usage'])).toEqual(['y', undefined]);
    const unwalkable = new JsonAnswer({ raw: b('{"us\\u0061ge":{"a":1}}') });
    expect(unwalkable.member('usage')).toEqual({ a: 1 });
  });
});
