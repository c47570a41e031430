/**
 * default.allUppercase {}: passes when the text has no lower-case letter (Unicode Ll); digits,
 * punctuation and caseless scripts are ignored, so an empty text passes.
 * Reads the request text before the request and the response text after it.
 */
import { BOTH_PHASES, defineCheck, textFor } from '../check.js';
import { ParamReader } from '../params.js';

export const allUppercase = defineCheck({
  id: 'default.allUppercase',
  phases: BOTH_PHASES,
  reads: 'text',
  parse(params, path) {
    new ParamReader(params, path);
    return {};
  },
  evaluate(input) {
    const verdict = !/\p{Ll}/u.test(textFor(input));
    return { verdict, explanation: verdict ? 'The text is all upper case.' : 'The text has lower-case letters.' };
  },
});
