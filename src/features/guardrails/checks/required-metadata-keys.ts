/**
 * default.requiredMetadataKeys {metadataKeys, operator: all (default)|any|none, matchType}: checks
 * the keys of the request metadata (`x-gateway-metadata`). How one required entry matches a key:
 * - exact (default): the key equals the entry;
 * - contains: the key contains the entry as a substring;
 * - containsAll: the entry is a string or an array of strings; the key contains every one of them;
 * - regex: the entry is a regular expression tested against the key (RE2 with a time budget, see
 *   foundation/lib/safe-regex.ts: no backreferences or lookaround).
 * all: every entry matches some key; any: at least one does; none: none does.
 * Reads the metadata only; works before and after the request.
 */
import { RegexError, compileSafeRegex, testSafeRegex } from '../../../foundation/lib/safe-regex.js';
import { BOTH_PHASES, defineCheck } from '../check.js';
import { ParamReader } from '../params.js';

const OPERATORS = ['all', 'any', 'none'] as const;
const MATCH_TYPES = ['exact', 'contains', 'containsAll', 'regex'] as const;
type MatchType = (typeof MATCH_TYPES)[number];

type Matcher = (key: string) => boolean | Promise<boolean>;

function matcherFor(entry: string | string[], matchType: MatchType): Matcher {
  if (Array.isArray(entry)) return (key) => entry.every((part) => key.includes(part));
  switch (matchType) {
    case 'exact':
      return (key) => key === entry;
    case 'contains':
    case 'containsAll':
      return (key) => key.includes(entry);
    case 'regex': {
      const re = compileSafeRegex(entry);
      return (key) => testSafeRegex(re, key);
    }
  }
}

function label(entry: string | string[]): string {
  return Array.isArray(entry) ? entry.join('+') : entry;
}

export const requiredMetadataKeys = defineCheck({
  id: 'default.requiredMetadataKeys',
  phases: BOTH_PHASES,
  reads: 'metadata',
  parse(params, path) {
    const p: ParamReader = new ParamReader(params, path);
    const operator = p.oneOf('operator', OPERATORS, 'all');
    const matchType = p.oneOf('matchType', MATCH_TYPES, 'exact');
    const raw = p.params.metadataKeys;
    if (!Array.isArray(raw) || raw.length === 0) p.fail('metadataKeys', 'must be a non-empty array');
    const entries = raw.map((e, i): string | string[] => {
      const isList = Array.isArray(e) && e.length > 0 && e.every((s) => typeof s === 'string' && s.length > 0);
      if (isList && matchType === 'containsAll') return e as string[];
      if (typeof e !== 'string' || e.length === 0) {
        p.fail(
          `metadataKeys[${i}]`,
          matchType === 'containsAll' ? 'must be a non-empty string or array of strings' : 'must be a non-empty string',
        );
      }
      return e;
    });
    const matchers = entries.map((e, i) => {
      try {
        return matcherFor(e, matchType);
      } catch (err) {
        if (!(err instanceof RegexError)) throw err;
        p.fail(`metadataKeys[${i}]`, err.message);
      }
    });
    return { operator, matchType, entries, matchers };
  },
  async evaluate(input, { operator, matchType, entries, matchers }) {
    const keys = Object.keys(input.request.metadata);
    const hits = await Promise.all(matchers.map(async (m) => (await Promise.all(keys.map(m))).some(Boolean)));
    const found = entries.filter((_, i) => hits[i]).map(label);
    const missing = entries.map(label).filter((l) => !found.includes(l));
    const verdict = operator === 'all' ? missing.length === 0 : operator === 'any' ? found.length > 0 : found.length === 0;
    const explanation = verdict
      ? `Metadata keys satisfy "${operator}" (${matchType}).`
      : operator === 'none'
        ? `Forbidden metadata keys present: ${found.join(', ')}.`
        : `Missing metadata keys: ${missing.join(', ')}.`;
    return { verdict, explanation, data: { operator, matchType, found, missing } };
  },
});
