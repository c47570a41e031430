/**
 * default.jsonSchema {schema}: passes when a JSON value found in the text (the whole text, a fenced
 * block, or a `{…}` span; see json-in-text.ts) validates against the JSON Schema `schema` (Ajv,
 * draft-07 keywords, ajv-formats formats). Fails when no JSON is found.
 * Reads the request text before the request and the response text after it.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { canonicalJson } from '../../lib/json.js';
import { BOTH_PHASES, defineCheck, textFor } from '../check.js';
import { findJsonValues } from '../json-in-text.js';
import { ParamReader } from '../params.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const ajv = addFormats(new Ajv({ allErrors: true, strict: false, addUsedSchema: false }));
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

export const jsonSchema = defineCheck({
  id: 'default.jsonSchema',
  phases: BOTH_PHASES,
  reads: 'text',
  parse(params, path) {
    const p: ParamReader = new ParamReader(params, path);
    const schema = p.object('schema', true)!;
    let validate: ValidateFunction | undefined;
    try {
      validate = compileSchema(schema);
    } catch (err) {
      p.fail('schema', `is not a valid JSON Schema (${(err as Error).message})`);
    }
    return { validate };
  },
  evaluate(input, { validate }) {
    const values = findJsonValues(textFor(input));
    if (values.length === 0) return { verdict: false, explanation: 'No JSON found in the text.', data: { found: false } };
    let firstErrors: unknown = null;
    for (const value of values) {
      if (validate(value)) return { verdict: true, explanation: 'The JSON matches the schema.', data: { found: true, value } };
      firstErrors ??= (validate.errors ?? []).map((e: ErrorObject) => ({ path: e.instancePath, message: e.message }));
    }
    return { verdict: false, explanation: 'The JSON does not match the schema.', data: { found: true, errors: firstErrors } };
  },
});
