/**
 * default.regexMatch {rule, not}: passes when the text matches the regular expression `rule`
 * (JavaScript syntax; `/pattern/flags` form accepted), or when it does NOT match with `not: true`.
 * Reads the request text before the request and the response text after it.
 */
import { BOTH_PHASES, defineCheck, textFor } from '../check.js';
import { ParamReader } from '../params.js';

const LITERAL = /^\/(.+)\/([dgimsuvy]*)$/s;

/** Compiles `rule`; `/x/i` literal syntax keeps its flags (the `g` and `y` flags are dropped). */
export function compileRule(rule: string): RegExp {
  const lit = LITERAL.exec(rule);
  if (lit) return new RegExp(lit[1], lit[2].replace(/[gy]/g, ''));
  return new RegExp(rule);
}

export const regexMatch = defineCheck({
  id: 'default.regexMatch',
  phases: BOTH_PHASES,
  reads: 'text',
  parse(params, path) {
    const p: ParamReader = new ParamReader(params, path);
    const rule = p.string('rule', { required: true, nonEmpty: true });
    let re: RegExp;
    try {
      re = compileRule(rule);
    } catch (err) {
      p.fail('rule', `is not a valid regular expression (${(err as Error).message})`);
    }
    return { re, not: p.bool('not', false) };
  },
  evaluate(input, { re, not }) {
    const text = textFor(input);
    const m = re.exec(text);
    const verdict = not ? m === null : m !== null;
    return {
      verdict,
      explanation: m ? `The text matches ${re}.` : `The text does not match ${re}.`,
      data: { matched: m !== null, match: m ? m[0] : null, not },
    };
  },
});
