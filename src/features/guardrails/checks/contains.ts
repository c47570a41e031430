/**
 * default.contains {operator: any|all|none (default any), words}: looks for each word in the text as a
 * case-insensitive substring ("secret" is found in "SECRETS"). any: at least one found; all: every
 * one found; none: none found.
 * Reads the request text before the request and the response text after it.
 */
import { BOTH_PHASES, defineCheck, textFor } from '../check.js';
import { ParamReader } from '../params.js';

const OPERATORS = ['any', 'all', 'none'] as const;

export const contains = defineCheck({
  id: 'default.contains',
  phases: BOTH_PHASES,
  reads: 'text',
  parse(params, path) {
    const p: ParamReader = new ParamReader(params, path);
    const words = p.stringArray('words');
    return { operator: p.oneOf('operator', OPERATORS, 'any'), words };
  },
  evaluate(input, { operator, words }) {
    const text = textFor(input).toLowerCase();
    const found = words.filter((w) => text.includes(w.toLowerCase()));
    const missing = words.filter((w) => !found.includes(w));
    const verdict = operator === 'any' ? found.length > 0 : operator === 'all' ? missing.length === 0 : found.length === 0;
    return {
      verdict,
      explanation: found.length ? `Found: ${found.join(', ')}.` : 'None of the words was found.',
      data: { operator, found, missing },
    };
  },
});
