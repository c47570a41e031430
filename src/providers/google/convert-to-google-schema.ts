import { isObject } from '../../foundation/lib/json.js';

/** Schema keys Gemini's OpenAPI-subset `Schema` accepts; every other key is dropped. */
const ACCEPTED = new Set([
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'maxItems',
  'minItems',
  'properties',
  'required',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'example',
  'anyOf',
  'propertyOrdering',
  'default',
  'items',
  'minimum',
  'maximum',
]);

const MAX_DEPTH = 32;

/**
 * Converts a JSON Schema (tool parameters, `response_format.json_schema.schema`) to the subset Gemini
 * accepts: local `$ref`s are inlined, `const` becomes a one-value `enum`, `type: [T, "null"]` becomes
 * `type: T` with `nullable: true`, and keys Gemini rejects (`additionalProperties`, `$schema`, `$defs`,
 * `strict`, …) are removed.
 * @see https://ai.google.dev/api/caching#Schema
 */
export function convertToGoogleSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const defs = { ...(isObject(schema.$defs) ? schema.$defs : {}), ...(isObject(schema.definitions) ? schema.definitions : {}) };
  return convert(schema, defs, 0);
}

function convert(node: Record<string, unknown>, defs: Record<string, unknown>, depth: number): Record<string, unknown> {
  if (depth > MAX_DEPTH) return {};
  if (typeof node.$ref === 'string') {
    const target = defs[node.$ref.replace(/^#\/(\$defs|definitions)\//, '')];
    const { $ref: _ref, ...rest } = node;
    return convert({ ...(isObject(target) ? target : {}), ...rest }, defs, depth + 1);
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'const') out.enum = [value];
    else if (!ACCEPTED.has(key)) continue;
    else if (key === 'properties' && isObject(value)) {
      out.properties = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, isObject(v) ? convert(v, defs, depth + 1) : {}]));
    } else if (key === 'items' && isObject(value)) out.items = convert(value, defs, depth + 1);
    else if (key === 'anyOf' && Array.isArray(value)) out.anyOf = convertVariants(value, out, defs, depth);
    else out[key] = value;
  }
  if (Array.isArray(node.oneOf) && out.anyOf === undefined) out.anyOf = convertVariants(node.oneOf, out, defs, depth);
  if (Array.isArray(out.anyOf) && out.anyOf.length === 1) {
    const only = out.anyOf[0] as Record<string, unknown>;
    delete out.anyOf;
    Object.assign(out, only, out.nullable ? { nullable: true } : {});
  }
  if (Array.isArray(out.type)) {
    const types = out.type.filter((t) => t !== 'null');
    if (types.length < out.type.length) out.nullable = true;
    if (types.length === 1) out.type = types[0];
    else {
      delete out.type;
      out.anyOf = types.map((t) => ({ type: t }));
    }
  }
  if (Array.isArray(out.enum) && out.type === undefined) out.type = 'string';
  if (Array.isArray(out.enum)) out.enum = out.enum.filter((v) => v !== null).map(String);
  return out;
}

/** Converts `anyOf`/`oneOf` members; a `{type: "null"}` member becomes `nullable` on the parent. */
function convertVariants(
  variants: unknown[],
  parent: Record<string, unknown>,
  defs: Record<string, unknown>,
  depth: number,
): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const v of variants) {
    if (!isObject(v)) continue;
    if (v.type === 'null') parent.nullable = true;
    else out.push(convert(v, defs, depth + 1));
  }
  return out;
}
