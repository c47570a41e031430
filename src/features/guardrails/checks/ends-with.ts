/**
 * default.endsWith {suffix}: passes when the text, ignoring trailing whitespace, ends with `suffix`
 * (case-sensitive). Reads the request text before the request and the response text after it.
 */
import { BOTH_PHASES, defineCheck, textFor } from '../check.js';
import { ParamReader } from '../params.js';

export const endsWith = defineCheck({
  id: 'default.endsWith',
  phases: BOTH_PHASES,
  reads: 'text',
  parse(params, path) {
    const p: ParamReader = new ParamReader(params, path);
    return { suffix: p.string('suffix', { required: true, nonEmpty: true }) };
  },
  evaluate(input, { suffix }) {
    const text = textFor(input);
    const verdict = text.endsWith(suffix) || text.trimEnd().endsWith(suffix.trimEnd());
    return {
      verdict,
      explanation: verdict ? `The text ends with "${suffix}".` : `The text does not end with "${suffix}".`,
      data: { suffix },
    };
  },
});
