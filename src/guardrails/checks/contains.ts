/**
 * default.contains {operator: any|all|none (default any), words}: looks for each word in the text,
 * case-insensitively and as a whole word (a word is not found inside a longer word: "ass" is not in
 * "class"). any: at least one found; all: every one found; none: none found.
 * Reads the request text before the request and the response text after it.
 */
import { BOTH_PHASES, defineCheck, textFor } from '../check.js';
import { ParamReader } from '../params.js';

const OPERATORS = ['any', 'all', 'none'] as const;

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A case-insensitive whole-word matcher for `word` (boundaries apply only at word characters). */
export function wordMatcher(word: string): RegExp {
  const head = /^[\p{L}\p{N}_]/u.test(word) ? '(?<![\\p{L}\\p{N}_])' : '';
  const tail = /[\p{L}\p{N}_]$/u.test(word) ? '(?![\\p{L}\\p{N}_])' : '';
  return new RegExp(`${head}${escape(word)}${tail}`, 'iu');
}

export const contains = defineCheck({
  id: 'default.contains',
  phases: BOTH_PHASES,
  reads: 'text',
  parse(params, path) {
    const p: ParamReader = new ParamReader(params, path);
    const words = p.stringArray('words');
    return { operator: p.oneOf('operator', OPERATORS, 'any'), words, matchers: words.map(wordMatcher) };
  },
  evaluate(input, { operator, words, matchers }) {
    const text = textFor(input);
    const found = words.filter((_, i) => matchers[i].test(text));
    const missing = words.filter((w) => !found.includes(w));
    const verdict = operator === 'any' ? found.length > 0 : operator === 'all' ? missing.length === 0 : found.length === 0;
    return {
      verdict,
      explanation: found.length ? `Found: ${found.join(', ')}.` : 'None of the words was found.',
      data: { operator, found, missing },
    };
  },
});
