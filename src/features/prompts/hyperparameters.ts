import { Type, type TSchema } from 'typebox';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { ChatCompletionBody } from '../../foundation/spec/chat-completion-body.js';
import { Nullable } from '../../foundation/spec/nullable.js';

const { messages: _messages, ...checked } = ChatCompletionBody.properties;

/**
 * Chat-completion parameters a prompt request may carry at the root of its body (and a prompt may
 * save in `parameters`): the chat route's checked fields with the same bounds, plus the other
 * parameters of the common chat schema, passed through as they are.
 * @see https://platform.openai.com/docs/api-reference/chat/create
 */
export const HYPERPARAMETERS: Record<string, TSchema> = {
  ...checked,
  logit_bias: Type.Optional(Nullable(Type.Record(Type.String(), Type.Number()))),
  logprobs: Type.Optional(Type.Boolean()),
  top_logprobs: Type.Optional(Type.Integer({ minimum: 0, maximum: 20 })),
  seed: Type.Optional(Type.Integer()),
  user: Type.Optional(Type.String()),
  tool_choice: Type.Optional(Type.Unknown()),
  parallel_tool_calls: Type.Optional(Type.Boolean()),
  response_format: Type.Optional(Type.Object({ type: Type.String() }, { additionalProperties: true })),
  thinking: Type.Optional(Type.Object({ type: Type.String() }, { additionalProperties: true })),
  reasoning_effort: Type.Optional(Type.String()),
  function_call: Type.Optional(Type.Unknown()),
  functions: Type.Optional(Type.Array(Type.Object({ name: Type.String() }, { additionalProperties: true }))),
  modalities: Type.Optional(Type.Array(Type.String())),
  audio: Type.Optional(Type.Unknown()),
  prediction: Type.Optional(Type.Unknown()),
  service_tier: Type.Optional(Type.String()),
  store: Type.Optional(Type.Boolean()),
  metadata: Type.Optional(Type.Record(Type.String(), Type.String())),
  web_search_options: Type.Optional(Type.Unknown()),
  verbosity: Type.Optional(Type.String()),
  prompt_cache_key: Type.Optional(Type.String()),
  safety_identifier: Type.Optional(Type.String()),
};

/** Parameters a prompt version may not save: the model has its own field, and streaming is the request's choice. */
const NOT_SAVED = new Set(['model', 'stream']);

/** The saved `parameters` of a prompt version (checked at write time). */
export const SavedParameters = Type.Object(Object.fromEntries(Object.entries(HYPERPARAMETERS).filter(([k]) => !NOT_SAVED.has(k))), {
  additionalProperties: true,
  description: 'Saved chat-completion hyperparameters (temperature, max_completion_tokens, tools, ...).',
});

/** The body of `/render` and `/completions`: `variables` plus hyperparameters at the root. */
export const PromptRunBody = Type.Object(
  { variables: Type.Record(Type.String(), Type.Unknown(), { description: 'Values substituted into the template.' }), ...HYPERPARAMETERS },
  { additionalProperties: true },
);

/**
 * Rejects keys that are not chat-completion parameters (400 naming the key). Nested `hyperparameters`
 * or `parameters` objects get a message that says where they belong.
 */
export function checkParameterKeys(value: Record<string, unknown>, where: 'body' | 'parameters'): void {
  for (const key of Object.keys(value)) {
    if (where === 'body' && key === 'variables') continue;
    if (where === 'parameters' && NOT_SAVED.has(key)) {
      const why = key === 'model' ? "save the model in the prompt's `model` field" : '`stream` is chosen by each request';
      throw new GatewayError('invalid_request', `parameters.${key} cannot be saved: ${why}.`, { param: `parameters.${key}` });
    }
    if (key === 'messages') {
      throw new GatewayError(
        'invalid_request',
        `${where}.messages is not accepted: the prompt template supplies the messages; pass values through \`variables\`.`,
        { param: `${where}.messages` },
      );
    }
    if (!Object.hasOwn(HYPERPARAMETERS, key)) {
      const hint = where === 'body' ? ' Hyperparameters go at the root of the body, next to `variables`, never nested.' : '';
      throw new GatewayError('invalid_request', `${where}.${key} is not a chat-completion parameter.${hint}`, { param: `${where}.${key}` });
    }
  }
}
