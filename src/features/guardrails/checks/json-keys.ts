/**
 * default.jsonKeys {keys, operator: any|all|none (default any)}: looks for top-level `keys` in the
 * JSON objects found in the text (see json-in-text.ts). Passes when one found object satisfies the
 * operator (any: has at least one key; all: has every key; none: has none of them). Fails when no
 * JSON object is found, whatever the operator.
 * Reads the request text before the request and the response text after it.
 */
import { isObject } from '../../../foundation/lib/json.js';
import { BOTH_PHASES, defineCheck, textFor } from '../check.js';
import { findJsonValues } from '../json-in-text.js';
import { ParamReader } from '../params.js';

const OPERATORS = ['any', 'all', 'none'] as const;

export const jsonKeys = defineCheck({
  id: 'default.jsonKeys',
  phases: BOTH_PHASES,
  reads: 'text',
  parse(params, path) {
    const p: ParamReader = new ParamReader(params, path);
    return { keys: p.stringArray('keys'), operator: p.oneOf('operator', OPERATORS, 'any') };
  },
  evaluate(input, { keys, operator }) {
    const objects = findJsonValues(textFor(input)).filter(isObject);
    if (objects.length === 0) return { verdict: false, explanation: 'No JSON object found in the text.', data: { found: false } };
    let best: { present: string[]; missing: string[] } | null = null;
    for (const obj of objects) {
      const present = keys.filter((k) => Object.hasOwn(obj, k));
      const missing = keys.filter((k) => !Object.hasOwn(obj, k));
      best ??= { present, missing };
      const ok = operator === 'any' ? present.length > 0 : operator === 'all' ? missing.length === 0 : present.length === 0;
      if (ok)
        return { verdict: true, explanation: `A JSON object satisfies "${operator}".`, data: { found: true, operator, present, missing } };
    }
    return {
      verdict: false,
      explanation: `No JSON object satisfies "${operator}" for ${keys.join(', ')}.`,
      data: { found: true, operator, ...best },
    };
  },
});
