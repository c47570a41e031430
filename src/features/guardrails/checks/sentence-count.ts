/**
 * default.sentenceCount {minSentences (default 0), maxSentences (default unlimited)}: passes when the
 * number of sentences is within the bounds (inclusive). A sentence ends at `.`, `!`, `?` or `…`
 * followed by whitespace or the end; a trailing fragment without punctuation counts as one; pieces
 * without a letter or digit do not count.
 * Reads the request text before the request and the response text after it.
 */
import { BOTH_PHASES, defineCheck, textFor } from '../check.js';
import { ParamReader } from '../params.js';

/** Sentences in `text` (see the module comment). */
export function countSentences(text: string): number {
  return text.split(/(?<=[.!?…])\s+/u).filter((s) => /[\p{L}\p{N}]/u.test(s)).length;
}

export const sentenceCount = defineCheck({
  id: 'default.sentenceCount',
  phases: BOTH_PHASES,
  reads: 'text',
  parse(params, path) {
    const p: ParamReader = new ParamReader(params, path);
    const min = p.int('minSentences', 0);
    const max = p.int('maxSentences', Number.MAX_SAFE_INTEGER);
    p.ordered('minSentences', min, 'maxSentences', max);
    return { min, max };
  },
  evaluate(input, { min, max }) {
    const count = countSentences(textFor(input));
    return {
      verdict: count >= min && count <= max,
      explanation: `${count} sentences.`,
      data: { count, minSentences: min, maxSentences: max },
    };
  },
});
