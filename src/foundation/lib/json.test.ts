import { describe, expect, it } from 'vitest';
import { UNKNOWN_MEMBER, lastMemberBounds, topLevelBounds, topLevelMember, topLevelMembers } from './json.js';
import { JsonAnswer } from '../../routing/outcome.js';

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

describe('topLevelMember from the end (the usage block after the choices)', () => {
  it('reads the last member from the end when only scalars follow it, as JSON.parse would', () => {
    expect(topLevelMember(b('{"usage":{"a":1},"s":"x\\"y\\\\","n":-1.5e3,"t":true,"z":null}'), 'usage')).toEqual({ a: 1 });
    expect(topLevelMember(b('{"id":"x", "usage" : "u" , "x" : 1 }\n'), 'usage')).toBe('u');
    expect(topLevelMember(b('{"usage": 12 }'), 'usage')).toBe(12);
    expect(topLevelMember(b('{"usage":{"a":1},"kind":"usage"}'), 'usage')).toEqual({ a: 1 });
    expect(topLevelMember(b('{"usage":{"a":1},"kind":"say \\"usage\\""}'), 'usage')).toEqual({ a: 1 });
    expect(topLevelMember(b('{"usage":{"a":1},"usage":2}'), 'usage')).toBe(2);
    expect(topLevelMember(b('{"usage":[1,{"b":"}"}]}'), 'usage')).toEqual([1, { b: '}' }]);
  });

  it('finds the member from the end wherever its key lies (the search back for the key at every alignment)', () => {
    for (let n = 0; n < 40; n++) {
      const usage = { a: 'u'.repeat(n), usag: 'usage ', b: [n] };
      const text = JSON.stringify({ id: 'x'.repeat(n % 9), usage, s: 'x' });
      const at = lastMemberBounds(b(text), 'usage');
      expect(at, text).toBeDefined();
      expect(JSON.parse(text.slice(at![1], at![2]))).toEqual(usage);
      expect(text.slice(at![0], at![1])).toBe('"usage":');
    }
  });

  it('walks the whole object when the last "usage" text is not the top-level member', () => {
    expect(topLevelMember(b('{"usage":{"a":1},"choices":[{"usage":{"b":2}}]}'), 'usage')).toEqual({ a: 1 });
    expect(topLevelMember(b('{"a":{"usage":{"t":1}},"c":2}'), 'usage')).toBeUndefined();
    expect(topLevelMember(b('{"a":{"b":1,"usage":{"t":1}},"c":2}'), 'usage')).toBeUndefined();
    expect(topLevelMember(b('{"c":"say \\"usage","usage":{"t":1}}'), 'usage')).toEqual({ t: 1 });
    expect(topLevelMember(b('{"usage":{"a":1},"us\\u0061ge":{"b":2}}'), 'usage')).toBe(UNKNOWN_MEMBER);
    expect(topLevelMember(b('{"x":1, "usage":{"a":1}'), 'usage')).toBe(UNKNOWN_MEMBER);
  });

  it('agrees with JSON.parse on generated answers', () => {
    let seed = 7;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const scalar = (): unknown => [() => rnd(1000) - 500, () => 'str "usage": {' + rnd(9), () => null, () => true, () => 1.5e-3][rnd(5)]!();
    const value = (depth: number): unknown => {
      if (depth > 2 || rnd(3) === 0) return scalar();
      if (rnd(2) === 0) return [value(depth + 1), value(depth + 1)];
      const o: Record<string, unknown> = {};
      for (let k = rnd(4); k > 0; k--) o[['usage', 'a', 'b'][rnd(3)]!] = value(depth + 1);
      return o;
    };
    for (let n = 0; n < 500; n++) {
      const o: Record<string, unknown> = {};
      for (let k = rnd(6); k > 0; k--) o[['usage', 'id', 'choices', 'n'][rnd(4)]!] = value(0);
      for (const text of [JSON.stringify(o), JSON.stringify(o, null, rnd(3))]) expect(topLevelMember(b(text), 'usage')).toEqual(o.usage);
    }
  });
});

describe('topLevelMembers', () => {
  it('walks strings of every length, with escaped quotes and backslashes anywhere in them, as JSON.parse reads them', () => {
    let seed = 11;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const text = () => `${'x'.repeat(rnd(40))}${['"', '\\', '\\"', '\\\\', ''][rnd(5)]}${'y'.repeat(rnd(40))}`;
    for (let n = 0; n < 500; n++) {
      const o: Record<string, unknown> = {};
      for (let k = rnd(6); k > 0; k--) o[['id', 'choices', 'usage', text()][rnd(4)]!] = rnd(2) ? text() : [{ [text()]: text() }, text()];
      const wanted = ['id', 'choices', 'usage'];
      expect(topLevelMembers(b(JSON.stringify(o)), wanted)).toEqual(wanted.map((k) => o[k]));
    }
  });

  it('reads several members in one walk, in the order asked, as topLevelMember reads each', () => {
    const text = JSON.stringify({
      id: 'c-1',
      model: 'm',
      choices: [{ index: 0, finish_reason: 'stop', message: { content: '"id": 2' } }],
      usage: { total_tokens: 5 },
      id2: 3,
    });
    expect(topLevelMembers(b(text), ['usage', 'id', 'missing', 'choices'])).toEqual([
      { total_tokens: 5 },
      'c-1',
      undefined,
      [{ index: 0, finish_reason: 'stop', message: { content: '"id": 2' } }],
    ]);
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
    expect([answer.member('id'), answer.member('usage')]).toEqual(['x', { total_tokens: 2 }]);
    expect(answer.member('usage')).toBe(answer.member('usage'));
    answer.replace({ id: 'y' });
    expect([answer.member('id'), answer.member('usage')]).toEqual(['y', undefined]);
    const unwalkable = new JsonAnswer({ raw: b('{"us\\u0061ge":{"a":1}}') });
    expect(unwalkable.member('usage')).toEqual({ a: 1 });
    // An upstream's malformed body passes through as it came; its members are unknown, not an exception on the accounting path.
    expect(new JsonAnswer({ raw: b('{"usage":{"a":1}') }).member('usage')).toBeUndefined();
  });
});
