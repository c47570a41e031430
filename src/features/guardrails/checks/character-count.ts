/**
 * default.characterCount {minCharacters (default 0), maxCharacters (default unlimited)}: passes when
 * the number of characters (Unicode code points, whitespace included) is within the bounds (inclusive).
 * Reads the request text before the request and the response text after it.
 */
import { BOTH_PHASES, defineCheck, textFor } from '../check.js';
import { ParamReader } from '../params.js';

export const characterCount = defineCheck({
  id: 'default.characterCount',
  phases: BOTH_PHASES,
  reads: 'text',
  parse(params, path) {
    const p: ParamReader = new ParamReader(params, path);
    const min = p.int('minCharacters', 0);
    const max = p.int('maxCharacters', Number.MAX_SAFE_INTEGER);
    p.ordered('minCharacters', min, 'maxCharacters', max);
    return { min, max };
  },
  evaluate(input, { min, max }) {
    let count = 0;
    for (const _ of textFor(input)) count++;
    return {
      verdict: count >= min && count <= max,
      explanation: `${count} characters.`,
      data: { count, minCharacters: min, maxCharacters: max },
    };
  },
});
