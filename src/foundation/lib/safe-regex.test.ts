import { afterAll, describe, expect, it } from 'vitest';
import {
  MAX_PATTERN_LENGTH,
  MAX_SUBJECT_LENGTH,
  RegexError,
  compileSafeRegex,
  matchSafeRegex,
  parseRegexLiteral,
  stopRegexWorker,
  testSafeRegex,
} from './safe-regex.js';

afterAll(() => stopRegexWorker());

describe('safe regular expressions', () => {
  it('matches like RegExp for ordinary patterns and flags', async () => {
    expect(await testSafeRegex(compileSafeRegex('^gpt-4'), 'gpt-4o')).toBe(true);
    expect(await testSafeRegex(compileSafeRegex('^hello'), 'HELLO there')).toBe(false);
    expect(await matchSafeRegex(compileSafeRegex('^hello', 'i'), 'HELLO there')).toEqual({ index: 0, text: 'HELLO' });
    expect(await matchSafeRegex(compileSafeRegex('#\\d{5}'), 'order #12345 please')).toEqual({ index: 6, text: '#12345' });
    expect(await testSafeRegex(compileSafeRegex('^b$', 'm'), 'a\nb')).toBe(true);
    expect(await testSafeRegex(compileSafeRegex('a.b', 's'), 'a\nb')).toBe(true);
    expect(await testSafeRegex(compileSafeRegex('a.b'), 'a\nb')).toBe(false);
    expect(await testSafeRegex(compileSafeRegex('x', 'g'), 'xx')).toBe(true);
    expect(parseRegexLiteral('/^hello/i')).toEqual({ pattern: '^hello', flags: 'i' });
    expect(parseRegexLiteral('^hello')).toBeUndefined();
  });

  it('runs a catastrophic pattern in linear time, without holding the event loop', async () => {
    const re = compileSafeRegex('^(a+)+$');
    await testSafeRegex(compileSafeRegex('warm'), 'up');
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 1);
    const started = performance.now();
    expect(await testSafeRegex(re, `${'a'.repeat(40)}b`)).toBe(false);
    expect(performance.now() - started).toBeLessThan(100);
    clearInterval(ticker);
    expect(await testSafeRegex(re, 'a'.repeat(40))).toBe(true);
  });

  it('cuts a match that overruns its budget, keeps the event loop free, and recovers', async () => {
    // RE2's DFA gives up on this pattern and its NFA takes tens of seconds on 100,000 pseudo-random a/b characters.
    const re = compileSafeRegex(`[^z]*a${'[^z]'.repeat(100)}z`);
    let x = 1;
    let subject = '';
    for (let i = 0; i < 100_000; i++) {
      x = (x * 1103515245 + 12345) % 2147483648;
      subject += x & 65536 ? 'a' : 'b';
    }
    let maxGap = 0;
    let last = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      maxGap = Math.max(maxGap, now - last);
      last = now;
    }, 5);
    const started = performance.now();
    await expect(matchSafeRegex(re, subject, 200)).rejects.toThrow(/did not finish within 200 ms/);
    clearInterval(ticker);
    expect(performance.now() - started).toBeLessThan(1000);
    // Matched on this thread, the event loop would stop for tens of seconds; allow for a busy machine.
    expect(maxGap).toBeLessThan(500);
    expect(await testSafeRegex(compileSafeRegex('^ok$'), 'ok')).toBe(true);
  });

  it('refuses backreferences, lookaround, huge repetitions, long patterns and bad syntax at compile time', () => {
    expect(() => compileSafeRegex('(a)\\1')).toThrow(/backreference/);
    expect(() => compileSafeRegex('(?<x>a)\\k<x>')).toThrow(/backreference/);
    expect(() => compileSafeRegex('a(?=b)')).toThrow(/lookahead or lookbehind/);
    expect(() => compileSafeRegex('(?<!a)b')).toThrow(/lookahead or lookbehind/);
    expect(() => compileSafeRegex('a{1001}')).toThrow(/more than 1000 times/);
    expect(() => compileSafeRegex('a'.repeat(MAX_PATTERN_LENGTH + 1))).toThrow(/longer than 1000/);
    expect(() => compileSafeRegex('(')).toThrow(RegexError);
    expect(() => compileSafeRegex('a', 'x')).toThrow(/unsupported flag/);
    expect(compileSafeRegex('[\\1(?=]')).toBeDefined();
    expect(compileSafeRegex('(?<name>a)(?:b)')).toBeDefined();
  });

  it('refuses a subject longer than the cap', async () => {
    await expect(matchSafeRegex(compileSafeRegex('a'), 'b'.repeat(MAX_SUBJECT_LENGTH + 1))).rejects.toThrow(/longer than/);
  });

  it('reports a pattern JavaScript accepts but RE2 refuses when matching, and keeps working', async () => {
    // Generous budgets: compiling a Unicode class takes a while on a busy machine.
    await expect(matchSafeRegex(compileSafeRegex('\\p{Letter}+'), 'abc', 5_000)).rejects.toThrow(/engine refused the pattern/);
    expect(await testSafeRegex(compileSafeRegex('\\p{L}+'), 'abc', 5_000)).toBe(true);
  });
});
