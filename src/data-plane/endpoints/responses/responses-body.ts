import { Type } from 'typebox';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { isObject } from '../../../foundation/lib/json.js';
import { Nullable } from '../../../foundation/spec/nullable.js';

/** `include` values a stored response can be read with (GET /v1/responses/{id} and input_items). */
export const ALLOWED_INCLUDES: readonly string[] = [
  'file_search_call.results',
  'message.input_image.image_url',
  'computer_call_output.output.image_url',
];

/** Metadata limits (gateway-spec.md, "Limits"). */
export const METADATA_LIMITS = { pairs: 16, keyLength: 64, valueLength: 512 } as const;

const Item = Type.Object({ type: Type.Optional(Type.String()), role: Type.Optional(Type.String()) }, { additionalProperties: true });
const Tool = Type.Object({ type: Type.String({ minLength: 1 }) }, { additionalProperties: true });
const ToolChoice = Type.Union([Type.String({ minLength: 1 }), Type.Object({ type: Type.String() }, { additionalProperties: true })]);
const Effort = Nullable(Type.String({ minLength: 1 }));
const Summary = Nullable(Type.String({ minLength: 1 }));
const Format = Type.Object(
  {
    type: Type.String({ minLength: 1 }),
    name: Type.Optional(Type.String({ pattern: '^[a-zA-Z0-9_-]{1,64}$' })),
    schema: Type.Optional(Type.Object({}, { additionalProperties: true })),
    strict: Type.Optional(Nullable(Type.Boolean())),
    description: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

/**
 * Body of `POST /v1/responses`: the types and bounds of the members the gateway reads (temperature 0–2,
 * top_p 0–1, max_output_tokens, metadata, ...). Enum-like members (`reasoning.effort`, `truncation`,
 * `text.format.type`, `include`, tool types) are strings: new values and unknown members (`reasoning.context`,
 * `prompt_cache_key`, ...) pass through untouched to native hosts; the gateway's own run over chat maps,
 * drops or refuses them (docs/responses.md, "Forward compatibility").
 * @see https://platform.openai.com/docs/api-reference/responses/create
 */
export const ResponsesBody = Type.Object(
  {
    model: Type.Optional(Type.String({ minLength: 1 })),
    input: Type.Union([Type.String(), Type.Array(Item, { minItems: 1 })]),
    instructions: Type.Optional(Nullable(Type.String())),
    tools: Type.Optional(Type.Array(Tool)),
    tool_choice: Type.Optional(ToolChoice),
    parallel_tool_calls: Type.Optional(Nullable(Type.Boolean())),
    previous_response_id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 64 }))),
    stream: Type.Optional(Nullable(Type.Boolean())),
    max_output_tokens: Type.Optional(Nullable(Type.Integer({ minimum: 16 }))),
    truncation: Type.Optional(Nullable(Type.String({ minLength: 1 }))),
    metadata: Type.Optional(Nullable(Type.Object({}, { additionalProperties: true }))),
    store: Type.Optional(Nullable(Type.Boolean())),
    temperature: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 2 }))),
    top_p: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 1 }))),
    reasoning: Type.Optional(
      Nullable(
        Type.Object(
          { effort: Type.Optional(Effort), summary: Type.Optional(Summary), generate_summary: Type.Optional(Summary) },
          { additionalProperties: true },
        ),
      ),
    ),
    text: Type.Optional(Nullable(Type.Object({ format: Type.Optional(Format) }, { additionalProperties: true }))),
    user: Type.Optional(Type.String()),
    include: Type.Optional(Nullable(Type.Array(Type.String()))),
  },
  { additionalProperties: true },
);

/** Checks what the JSON schema cannot say clearly: metadata limits, function tools, text.format. */
export function checkResponsesBody(body: Record<string, unknown>): void {
  if (isObject(body.metadata)) checkMetadata(body.metadata);
  if (Array.isArray(body.tools)) {
    body.tools.forEach((t, i) => {
      if (!isObject(t) || t.type !== 'function') return;
      if (typeof t.name !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(t.name)) {
        throw new GatewayError(
          'invalid_request',
          `tools[${i}].name is required for a function tool: 1 to 64 letters, digits, '_' or '-'.`,
          { param: `tools[${i}].name` },
        );
      }
      if (t.parameters !== undefined && t.parameters !== null && !isObject(t.parameters)) {
        throw new GatewayError('invalid_request', `tools[${i}].parameters must be a JSON schema object.`, {
          param: `tools[${i}].parameters`,
        });
      }
    });
  }
  const format = isObject(body.text) && isObject(body.text.format) ? body.text.format : undefined;
  if (format?.type === 'json_schema' && (typeof format.name !== 'string' || !isObject(format.schema))) {
    throw new GatewayError('invalid_request', "text.format of type 'json_schema' needs 'name' and 'schema'.", { param: 'text.format' });
  }
  if (isObject(body.tool_choice) && body.tool_choice.type === 'function' && typeof body.tool_choice.name !== 'string') {
    throw new GatewayError('invalid_request', "tool_choice of type 'function' needs 'name'.", { param: 'tool_choice.name' });
  }
}

/** 400 unless the object has at most 16 pairs, keys of at most 64 characters and string values of at most 512. */
export function checkMetadata(metadata: Record<string, unknown>): void {
  const entries = Object.entries(metadata);
  if (entries.length > METADATA_LIMITS.pairs) {
    throw new GatewayError('invalid_request', `metadata has ${entries.length} pairs; at most ${METADATA_LIMITS.pairs} are allowed.`, {
      param: 'metadata',
    });
  }
  for (const [k, v] of entries) {
    if (k.length > METADATA_LIMITS.keyLength)
      throw new GatewayError(
        'invalid_request',
        `metadata key '${k.slice(0, 16)}…' is longer than ${METADATA_LIMITS.keyLength} characters.`,
        { param: 'metadata' },
      );
    if (typeof v !== 'string') throw new GatewayError('invalid_request', `metadata.${k} must be a string.`, { param: `metadata.${k}` });
    if (v.length > METADATA_LIMITS.valueLength)
      throw new GatewayError('invalid_request', `metadata.${k} is longer than ${METADATA_LIMITS.valueLength} characters.`, {
        param: `metadata.${k}`,
      });
  }
}

/** 400 naming the first `include` value the specification does not allow. */
export function checkIncludes(values: unknown[], param: string): void {
  for (const v of values) {
    if (typeof v !== 'string' || !ALLOWED_INCLUDES.includes(v)) {
      throw new GatewayError(
        'invalid_request',
        `${param}: '${String(v)}' is not supported; allowed values: ${ALLOWED_INCLUDES.join(', ')}.`,
        { param },
      );
    }
  }
}
