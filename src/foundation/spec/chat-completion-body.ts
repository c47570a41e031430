import { Type } from 'typebox';
import { StringOrArray } from './string-or-array.js';
import { Nullable } from './nullable.js';

const Message = Type.Object(
  {
    role: Type.String({ minLength: 1 }),
    content: Type.Optional(StringOrArray(Type.Object({ type: Type.String() }, { additionalProperties: true }), { nullable: true })),
  },
  { additionalProperties: true },
);

/**
 * The chat completions body: the common schema's required fields and bounds; other fields pass through.
 * A message's `role` is any non-empty string: a new role reaches an OpenAI-speaking target untouched, and
 * a translating provider refuses a role it cannot map with a 400 naming `messages[i].role`.
 * The chat route validates with it and prompts take their hyperparameters from it.
 * @see https://platform.openai.com/docs/api-reference/chat/create
 */
export const ChatCompletionBody = Type.Object(
  {
    messages: Type.Array(Message, { minItems: 1 }),
    model: Type.Optional(Type.String()),
    stream: Type.Optional(Type.Boolean()),
    temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 2 })),
    top_p: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    n: Type.Optional(Type.Integer({ minimum: 1, maximum: 128 })),
    max_tokens: Type.Optional(Type.Integer({ minimum: 0 })),
    max_completion_tokens: Type.Optional(Type.Integer({ minimum: 0 })),
    presence_penalty: Type.Optional(Type.Number({ minimum: -2, maximum: 2 })),
    frequency_penalty: Type.Optional(Type.Number({ minimum: -2, maximum: 2 })),
    stop: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String(), { maxItems: 4 }), Type.Null()])),
    tools: Type.Optional(Type.Array(Type.Object({ type: Type.String() }, { additionalProperties: true }))),
    stream_options: Type.Optional(Nullable(Type.Object({ include_usage: Type.Optional(Type.Boolean()) }, { additionalProperties: true }))),
  },
  { additionalProperties: true },
);
