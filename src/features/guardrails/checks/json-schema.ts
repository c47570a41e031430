/**
 * default.jsonSchema {schema}: passes when a JSON value found in the text (the whole text, a fenced
 * block, or a `{…}` span; see json-in-text.ts) validates against the JSON Schema `schema` (Ajv,
 * draft-07 keywords, ajv-formats formats). Fails when no JSON is found.
 * The schema's `pattern` and `patternProperties` regular expressions follow foundation/lib/safe-regex.ts: they
 * are validated with the schema and matched on RE2 in the regex worker (every string and key of the
 * values, before Ajv runs), never by the JavaScript engine.
 * Reads the request text before the request and the response text after it.
 */
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { canonicalJson, isObject } from '../../../foundation/lib/json.js';
import { tooDeepPath } from '../../../foundation/lib/json-depth.js';
import { RegexError, compileSafeRegex, testEachSafeRegex, type SafeRegex } from '../../../foundation/lib/safe-regex.js';
import { BOTH_PHASES, defineCheck, textFor } from '../check.js';
import { findJsonValues } from '../json-in-text.js';
import { ParamReader } from '../params.js';

/** How deep a matching value may nest to be echoed in `data.value` (hook_results are serialised recursively). */
const MAX_ECHO_DEPTH = 32;

/** Most distinct strings and keys of the found values the schema's patterns are tested on. */
const MAX_PATTERN_SUBJECTS = 10_000;

/**
 * The schema patterns' results on the strings of the values being validated: pattern → the strings
 * it matches. Set around each (synchronous) Ajv validation; Ajv's pattern tests only look it up.
 */
let matches: Map<string, Set<string>> | null = null;

const lookupEngine: NonNullable<NonNullable<Options['code']>['regExp']> = Object.assign(
  (pattern: string) => ({ test: (s: string) => matches?.get(pattern)?.has(s) ?? false, toString: () => `safe-regex:${pattern}` }),
  { code: 'safe-regex' },
);

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const ajv = addFormats(new Ajv({ allErrors: true, strict: false, addUsedSchema: false, code: { regExp: lookupEngine } }));
const cache = new Map<string, ValidateFunction>();
const CACHE_MAX = 500;

/** Compiles `schema` once per canonical JSON form; throws Ajv's error for an invalid schema. */
export function compileSchema(schema: Record<string, unknown>): ValidateFunction {
  const key = canonicalJson(schema);
  let fn = cache.get(key);
  if (!fn) {
    fn = ajv.compile(schema);
    if (cache.size >= CACHE_MAX) cache.clear();
    cache.set(key, fn);
  }
  return fn;
}

/** The `pattern` strings and `patternProperties` keys anywhere in `schema`, walked without recursion. */
function patternsOf(schema: Record<string, unknown>): string[] {
  const out = new Set<string>();
  const stack: unknown[] = [schema];
  while (stack.length > 0) {
    const v = stack.pop();
    if (Array.isArray(v)) stack.push(...v);
    else if (isObject(v)) {
      if (typeof v.pattern === 'string') out.add(v.pattern);
      if (isObject(v.patternProperties)) for (const k of Object.keys(v.patternProperties)) out.add(k);
      stack.push(...Object.values(v));
    }
  }
  return [...out];
}

/** Every string value and object key in `values` (distinct), or undefined past MAX_PATTERN_SUBJECTS. */
function stringsOf(values: unknown[]): string[] | undefined {
  const out = new Set<string>();
  const stack: unknown[] = [...values];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') out.add(v);
    else if (Array.isArray(v)) stack.push(...v);
    else if (isObject(v)) {
      for (const [k, item] of Object.entries(v)) {
        out.add(k);
        stack.push(item);
      }
    }
    if (out.size > MAX_PATTERN_SUBJECTS) return undefined;
  }
  return [...out];
}

/** Runs the schema's patterns on the values' strings in the regex worker: pattern → matching strings. */
async function patternMatches(patterns: readonly SafeRegex[], values: unknown[]): Promise<Map<string, Set<string>>> {
  const found = new Map<string, Set<string>>();
  if (patterns.length === 0) return found;
  const strings = stringsOf(values);
  if (!strings) throw new RegexError(`the JSON holds more than ${MAX_PATTERN_SUBJECTS} strings and keys to test the schema's patterns on`);
  for (const re of patterns) {
    const each = await testEachSafeRegex(re, strings);
    found.set(re.source, new Set(strings.filter((_, i) => each[i])));
  }
  return found;
}

export const jsonSchema = defineCheck({
  id: 'default.jsonSchema',
  phases: BOTH_PHASES,
  reads: 'text',
  parse(params, path) {
    const p: ParamReader = new ParamReader(params, path);
    const schema = p.object('schema', true)!;
    const patterns = patternsOf(schema).map((source) => {
      try {
        return compileSafeRegex(source);
      } catch (err) {
        if (!(err instanceof RegexError)) throw err;
        p.fail('schema', `has a pattern ${JSON.stringify(source.slice(0, 100))} that ${err.message}`);
      }
    });
    let validate: ValidateFunction | undefined;
    try {
      validate = compileSchema(schema);
    } catch (err) {
      p.fail('schema', `is not a valid JSON Schema (${(err as Error).message})`);
    }
    return { validate, patterns };
  },
  async evaluate(input, { validate, patterns }) {
    const values = findJsonValues(textFor(input));
    if (values.length === 0) return { verdict: false, explanation: 'No JSON found in the text.', data: { found: false } };
    const found = await patternMatches(patterns, values);
    let firstErrors: unknown = null;
    matches = found;
    try {
      for (const value of values) {
        if (validate(value)) {
          const data = tooDeepPath(value, MAX_ECHO_DEPTH)
            ? { found: true, value: null, value_omitted: `nested more than ${MAX_ECHO_DEPTH} levels deep` }
            : { found: true, value };
          return { verdict: true, explanation: 'The JSON matches the schema.', data };
        }
        firstErrors ??= (validate.errors ?? []).map((e: ErrorObject) => ({ path: e.instancePath, message: e.message }));
      }
    } finally {
      matches = null;
    }
    return { verdict: false, explanation: 'The JSON does not match the schema.', data: { found: true, errors: firstErrors } };
  },
});
