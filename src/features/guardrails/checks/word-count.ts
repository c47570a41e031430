/**
 * default.wordCount {minWords (default 0), maxWords (default unlimited)}: passes when the number of
 * whitespace-separated words is within the bounds (inclusive).
 * Reads the request text before the request and the response text after it.
 */
import { BOTH_PHASES, defineCheck, textFor } from '../check.js';
import { ParamReader } from '../params.js';

/** Whitespace-separated tokens. */
export function countWords(text: string): number {
  const t = text.trim();
  return t ? t.split(/\s+/u).length : 0;
}

export const wordCount = defineCheck({
  id: 'default.wordCount',
  phases: BOTH_PHASES,
  reads: 'text',
  parse(params, path) {
    const p: ParamReader = new ParamReader(params, path);
    const min = p.int('minWords', 0);
    const max = p.int('maxWords', Number.MAX_SAFE_INTEGER);
    p.ordered('minWords', min, 'maxWords', max);
    return { min, max };
  },
  evaluate(input, { min, max }) {
    const count = countWords(textFor(input));
    const verdict = count >= min && count <= max;
    return {
      verdict,
      explanation: `${count} words; allowed ${min}..${max === Number.MAX_SAFE_INTEGER ? '∞' : max}.`,
      data: { count, minWords: min, maxWords: max },
    };
  },
});
