import { Type } from 'typebox';
import { StringOrArray } from '../../../foundation/spec/string-or-array.js';

const Block = Type.Object({ type: Type.String({ minLength: 1 }) }, { additionalProperties: true });
const Content = StringOrArray(Block);

/**
 * The `POST /v1/messages` body: the members the gateway reads, with the Messages API's bounds. Roles,
 * block types, `tool_choice.type` and `thinking.type` are strings, not frozen enums: new values (a
 * mid-conversation `system` message, `thinking: {type: "adaptive"}`) and other members (`service_tier`,
 * `container`, `context_management`, `output_config`, ...) pass through untouched to targets that speak the
 * API natively; the translation to chat maps or refuses them (docs/messages.md, "Forward compatibility").
 * @see https://docs.anthropic.com/en/api/messages
 */
export const MessagesBody = Type.Object(
  {
    model: Type.String({ minLength: 1 }),
    max_tokens: Type.Integer({ minimum: 1 }),
    messages: Type.Array(Type.Object({ role: Type.String({ minLength: 1 }), content: Content }, { additionalProperties: true }), {
      minItems: 1,
    }),
    system: Type.Optional(StringOrArray(Block)),
    stop_sequences: Type.Optional(Type.Array(Type.String())),
    stream: Type.Optional(Type.Boolean()),
    temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    top_p: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    top_k: Type.Optional(Type.Integer({ minimum: 0 })),
    tools: Type.Optional(Type.Array(Type.Object({ name: Type.String({ minLength: 1 }) }, { additionalProperties: true }))),
    tool_choice: Type.Optional(Type.Object({ type: Type.String({ minLength: 1 }) }, { additionalProperties: true })),
    thinking: Type.Optional(
      Type.Object(
        { type: Type.String({ minLength: 1 }), budget_tokens: Type.Optional(Type.Integer({ minimum: 1 })) },
        { additionalProperties: true },
      ),
    ),
    metadata: Type.Optional(Type.Object({ user_id: Type.Optional(Type.String()) }, { additionalProperties: true })),
  },
  { additionalProperties: true },
);

/** The `POST /v1/messages/count_tokens` body: a Messages body without `max_tokens` and `stream`. */
export const CountTokensBody = Type.Object(
  {
    model: Type.String({ minLength: 1 }),
    messages: MessagesBody.properties.messages,
    system: MessagesBody.properties.system,
    tools: MessagesBody.properties.tools,
    tool_choice: MessagesBody.properties.tool_choice,
    thinking: MessagesBody.properties.thinking,
  },
  { additionalProperties: true },
);
