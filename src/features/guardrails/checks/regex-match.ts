/**
 * default.regexMatch {rule, not}: passes when the text matches the regular expression `rule`
 * (JavaScript syntax without backreferences or lookaround; `/pattern/flags` form accepted), or when
 * it does NOT match with `not: true`. The pattern runs on RE2 with a time budget (foundation/lib/safe-regex.ts);
 * a text it cannot test (too long, budget spent) fails the check with `error`.
 * Reads the request text before the request and the response text after it.
 */
import { RegexError, compileSafeRegex, matchSafeRegex, parseRegexLiteral, type SafeRegex } from '../../../foundation/lib/safe-regex.js';
import { BOTH_PHASES, defineCheck, textFor } from '../check.js';
import { ParamReader } from '../params.js';

/** Compiles `rule`; `/x/i` literal syntax keeps its flags (`g`, `y`, `d` and `u` are ignored). Throws RegexError. */
export function compileRule(rule: string): SafeRegex {
  const lit = parseRegexLiteral(rule);
  return lit ? compileSafeRegex(lit.pattern, lit.flags) : compileSafeRegex(rule);
}

export const regexMatch = defineCheck({
  id: 'default.regexMatch',
  phases: BOTH_PHASES,
  reads: 'text',
  parse(params, path) {
    const p: ParamReader = new ParamReader(params, path);
    const rule = p.string('rule', { required: true, nonEmpty: true });
    let re: SafeRegex;
    try {
      re = compileRule(rule);
    } catch (err) {
      if (!(err instanceof RegexError)) throw err;
      p.fail('rule', err.message);
    }
    return { re, not: p.bool('not', false) };
  },
  async evaluate(input, { re, not }) {
    const m = await matchSafeRegex(re, textFor(input));
    const verdict = not ? m === null : m !== null;
    return {
      verdict,
      explanation: m ? `The text matches ${re}.` : `The text does not match ${re}.`,
      data: { matched: m !== null, match: m ? m.text : null, not },
    };
  },
});
