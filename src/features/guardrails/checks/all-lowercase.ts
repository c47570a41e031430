/**
 * default.allLowercase {}: passes when the text has no upper-case letter (Unicode Lu); digits,
 * punctuation and caseless scripts are ignored, so an empty text passes.
 * Reads the request text before the request and the response text after it.
 */
import { BOTH_PHASES, defineCheck, textFor } from '../check.js';
import { ParamReader } from '../params.js';

export const allLowercase = defineCheck({
  id: 'default.allLowercase',
  phases: BOTH_PHASES,
  reads: 'text',
  parse(params, path) {
    new ParamReader(params, path);
    return {};
  },
  evaluate(input) {
    const verdict = !/\p{Lu}/u.test(textFor(input));
    return { verdict, explanation: verdict ? 'The text is all lower case.' : 'The text has upper-case letters.' };
  },
});
