import { describe, expect, it } from 'vitest';
import { prefixedId, randomHex, randomId, timeOrderedId, uuid } from './ids.js';

describe('ids', () => {
  it('makes prefixed alphanumeric ids that do not repeat, across pool refills', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const id = prefixedId('chatcmpl-');
      expect(id).toMatch(/^chatcmpl-[A-Za-z0-9]{24}$/);
      seen.add(id);
    }
    expect(seen.size).toBe(2000);
    expect(randomId(48)).toHaveLength(48);
    expect(uuid()).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('makes version 4 UUIDs that do not repeat, across pool refills, each its own string', () => {
    const seen = new Set<string>();
    const nibbles = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const id = uuid();
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      seen.add(id);
      nibbles.add(id[0]!);
    }
    expect(seen.size).toBe(1000);
    expect(nibbles.size).toBe(16);
  });

  it('makes time-ordered ids whose text sorts by creation time and does not repeat within a millisecond', () => {
    const t = Date.UTC(2026, 10, 21);
    const ids = [
      timeOrderedId('log_', t + 1000),
      timeOrderedId('log_', t),
      timeOrderedId('log_', t + 1),
      timeOrderedId('log_', t + 36 ** 3),
    ];
    for (const id of ids) expect(id).toMatch(/^log_[0-9a-z]{9}[A-Za-z0-9]{15}$/);
    expect([...ids].sort()).toEqual([ids[1], ids[2], ids[0], ids[3]]);
    const same = new Set(Array.from({ length: 1000 }, () => timeOrderedId('log_', t)));
    expect(same.size).toBe(1000);
  });

  it('makes random hex ids of 8 and 16 bytes that do not repeat, across pool refills, each its own string', () => {
    const seen = new Set<string>();
    const digits = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const trace = randomHex(16);
      const span = randomHex(8);
      expect(trace).toMatch(/^[0-9a-f]{32}$/);
      expect(span).toMatch(/^[0-9a-f]{16}$/);
      seen.add(trace).add(span);
      for (const c of trace) digits.add(c);
    }
    expect(seen.size).toBe(2000);
    expect(digits.size).toBe(16);
  });

  it('writes the clock of a time-ordered id as base-36 digits, 9 at least, after any prefix', () => {
    for (const t of [
      0,
      1,
      35,
      36,
      36 ** 4 - 1,
      36 ** 4,
      36 ** 4 + 1,
      36 ** 5 - 1,
      Date.UTC(2026, 10, 28, 16, 30),
      36 ** 9 - 1,
      36 ** 9,
      36 ** 10 + 5,
      2 ** 31 * 36 ** 4 - 1,
      2 ** 31 * 36 ** 4 + 7,
      Number.MAX_SAFE_INTEGER,
      1234.9,
    ]) {
      const id = timeOrderedId('log_', t);
      const digits = Math.floor(t).toString(36).padStart(9, '0');
      expect(id.slice(0, 4 + digits.length)).toBe(`log_${digits}`);
      expect(id.slice(4 + digits.length)).toMatch(/^[A-Za-z0-9]{15}$/);
    }
    expect(timeOrderedId('', 2 ** 60).slice(0, 11)).toBe(Number.MAX_SAFE_INTEGER.toString(36));
    expect(timeOrderedId('', 36)).toMatch(/^000000010[A-Za-z0-9]{15}$/);
    expect(timeOrderedId('log_', -5)).toMatch(/^log_000000000[A-Za-z0-9]{15}$/);
    // A prefix past ASCII is kept as it is.
    expect(timeOrderedId('journal-é_', 36)).toMatch(/^journal-é_000000010[A-Za-z0-9]{15}$/);
    expect(prefixedId('ф-', 10)).toMatch(/^ф-[A-Za-z0-9]{10}$/);
  });

  it('makes ids of any length up to the random pool, each read back whole after a longer one', () => {
    expect(randomId(100)).toMatch(/^[A-Za-z0-9]{100}$/);
    expect(prefixedId('a'.repeat(80) + '-', 70)).toMatch(/^a{80}-[A-Za-z0-9]{70}$/);
    expect(randomId(5)).toMatch(/^[A-Za-z0-9]{5}$/);
    expect(prefixedId('file-')).toMatch(/^file-[A-Za-z0-9]{24}$/);
  });
});
