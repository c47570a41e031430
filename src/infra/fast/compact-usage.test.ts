import { describe, expect, it } from 'vitest';
import { readCompactUsage } from './compact-usage.js';

const full = (n: number[]) => ({
  prompt_tokens: n[0],
  completion_tokens: n[1],
  total_tokens: n[2],
  prompt_tokens_details: { cached_tokens: n[3], audio_tokens: n[4] },
  completion_tokens_details: {
    reasoning_tokens: n[5],
    audio_tokens: n[6],
    accepted_prediction_tokens: n[7],
    rejected_prediction_tokens: n[8],
  },
});
const short = (n: number[]) => ({ prompt_tokens: n[0], completion_tokens: n[1], total_tokens: n[2] });

/** `text` inside other bytes, as `readCompactUsage` meets it (the member's value within an answer). */
function read(text: string): unknown {
  const bytes = Buffer.from(`{"id":"x","usage":${text},"service_tier":"default"}`);
  const start = bytes.indexOf(text);
  return readCompactUsage(bytes, start, start + Buffer.byteLength(text));
}

describe('readCompactUsage', () => {
  it("reads OpenAI's two layouts as JSON.parse does (members, order, numbers)", () => {
    const values = [0, 1, 9, 10, 19, 250, 65_536, 2 ** 31, 999_999_999_999_990]; // v + 3 stays within 15 digits
    for (const v of values) {
      for (const make of [full, short]) {
        const usage = make([v, 3, v + 3, 0, 7, v, 0, 12, 5]);
        const text = JSON.stringify(usage);
        const got = read(text);
        expect(got).toEqual(JSON.parse(text));
        expect(Object.keys(got as object)).toEqual(Object.keys(JSON.parse(text)));
        expect(JSON.stringify(got)).toBe(text);
      }
    }
  });

  it('returns a new object each time (observers may keep it)', () => {
    const text = JSON.stringify(short([1, 2, 3]));
    expect(read(text)).not.toBe(read(text));
  });

  it('leaves every other form to JSON.parse (undefined), whatever JSON.parse makes of it', () => {
    const base = JSON.stringify(full([21, 9, 30, 0, 0, 0, 0, 0, 0]));
    const others = [
      base.replace('{"prompt_tokens":21', '{ "prompt_tokens":21'), // a space
      base.replace(':21', ': 21'),
      base.replace(':21', ':021'), // a leading zero: not JSON
      base.replace(':21', ':-21'),
      base.replace(':21', ':21.0'),
      base.replace(':21', ':2.1e1'),
      base.replace(':21', ':1234567890123456'), // 16 digits
      base.replace(':21', ':"21"'),
      base.replace(':21', ':null'),
      base.slice(0, -1), // cut short
      base + ' ',
      base.replace('}}', ',"extra":1}}'),
      base.replace('"prompt_tokens":21,"completion_tokens":9', '"completion_tokens":9,"prompt_tokens":21'), // another order
      JSON.stringify({ prompt_tokens: 1, total_tokens: 1 }),
      JSON.stringify({ prompt_tokens: 1, completion_tokens: 2, total_tokens: 3, prompt_tokens_details: { cached_tokens: 0 } }),
      JSON.stringify({ input_tokens: 1, output_tokens: 2 }),
      '{}',
      '',
    ];
    for (const text of others) expect(read(text), text).toBeUndefined();
  });

  it('agrees with JSON.parse on 20,000 texts mutated one byte at a time', () => {
    const base = Buffer.from(JSON.stringify(full([19, 31, 50, 0, 0, 0, 0, 0, 0])));
    const alphabet = Buffer.from('0123456789{}[]",: -.e_abcdn');
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    for (let k = 0; k < 20_000; k++) {
      const bytes = Buffer.from(base);
      bytes[random(bytes.length)] = alphabet[random(alphabet.length)]!;
      const got = readCompactUsage(bytes, 0, bytes.length);
      if (got === undefined) continue;
      // Whatever it reads, JSON.parse reads the same.
      expect(got).toEqual(JSON.parse(bytes.toString('utf8')));
    }
  });
});
