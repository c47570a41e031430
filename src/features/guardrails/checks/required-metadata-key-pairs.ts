/**
 * default.requiredMetadataKeyPairs {metadataPairs, operator: all (default)|any|none}: checks that
 * the request metadata holds the given key/value pairs (values compared as strings, exactly).
 * all: every pair present; any: at least one; none: none of them. Runs before the request.
 */
import { defineCheck } from '../check.js';
import { ParamReader } from '../params.js';

const OPERATORS = ['all', 'any', 'none'] as const;

export const requiredMetadataKeyPairs = defineCheck({
  id: 'default.requiredMetadataKeyPairs',
  phases: ['beforeRequestHook'],
  reads: 'metadata',
  parse(params, path) {
    const p: ParamReader = new ParamReader(params, path);
    const pairs = p.object('metadataPairs', true)!;
    const entries = Object.entries(pairs);
    if (entries.length === 0) p.fail('metadataPairs', 'must have at least one key');
    const normalized: Array<[string, string]> = entries.map(([k, v]) => {
      if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') p.fail(`metadataPairs.${k}`, 'must be a string');
      return [k, String(v)];
    });
    return { pairs: normalized, operator: p.oneOf('operator', OPERATORS, 'all') };
  },
  evaluate(input, { pairs, operator }) {
    const md = input.request.metadata;
    const matched = pairs.filter(([k, v]) => Object.hasOwn(md, k) && md[k] === v).map(([k]) => k);
    const unmatched = pairs.map(([k]) => k).filter((k) => !matched.includes(k));
    const verdict = operator === 'all' ? unmatched.length === 0 : operator === 'any' ? matched.length > 0 : matched.length === 0;
    return {
      verdict,
      explanation: verdict
        ? `Metadata pairs satisfy "${operator}".`
        : operator === 'none'
          ? `Forbidden metadata pairs present: ${matched.join(', ')}.`
          : `Metadata pairs not matched: ${unmatched.join(', ')}.`,
      data: { operator, matched, unmatched },
    };
  },
});
