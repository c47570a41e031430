import { Type, type TSchema } from 'typebox';
import { Nullable } from '../../foundation/spec/nullable.js';

/**
 * The answers of the data-plane routes as the OpenAPI document shows them: the members every client
 * reads, the rest left open (`additionalProperties`), since answers pass provider members through.
 * Documentation only: routes are not serialised through these (a passed-through answer keeps its bytes).
 */
const open = { additionalProperties: true };
const Usage = Type.Object({ prompt_tokens: Type.Integer(), completion_tokens: Type.Integer(), total_tokens: Type.Integer() }, open);

const ChatCompletion = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('chat.completion'),
    created: Type.Integer(),
    model: Type.String(),
    choices: Type.Array(
      Type.Object(
        {
          index: Type.Integer(),
          message: Type.Object({ role: Type.Literal('assistant'), content: Nullable(Type.String()) }, open),
          finish_reason: Nullable(Type.String()),
        },
        open,
      ),
    ),
    usage: Type.Optional(Usage),
  },
  {
    ...open,
    description: 'A chat completion (OpenAI schema); with `stream: true`, `chat.completion.chunk` events ending with `data: [DONE]`.',
  },
);

const TextCompletion = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('text_completion'),
    model: Type.String(),
    choices: Type.Array(Type.Object({ index: Type.Integer(), text: Type.String() }, open)),
    usage: Type.Optional(Usage),
  },
  { ...open, description: 'A text completion (OpenAI schema).' },
);

const Embeddings = Type.Object(
  {
    object: Type.Literal('list'),
    model: Type.String(),
    data: Type.Array(
      Type.Object(
        { object: Type.Literal('embedding'), index: Type.Integer(), embedding: Type.Union([Type.Array(Type.Number()), Type.String()]) },
        open,
      ),
    ),
  },
  { ...open, description: 'Embeddings (OpenAI schema).' },
);

const Images = Type.Object(
  {
    created: Type.Integer(),
    data: Type.Array(Type.Object({ url: Type.Optional(Type.String()), b64_json: Type.Optional(Type.String()) }, open)),
  },
  { ...open, description: 'Generated images (OpenAI schema).' },
);
const Moderation = Type.Object(
  { id: Type.String(), model: Type.String(), results: Type.Array(Type.Object({ flagged: Type.Boolean() }, open)) },
  { ...open, description: 'Moderation results (OpenAI schema).' },
);
const Rerank = Type.Object(
  { results: Type.Array(Type.Object({ index: Type.Integer(), relevance_score: Type.Number() }, open)) },
  { ...open, description: 'Documents ranked by relevance.' },
);
const Model = Type.Object(
  { id: Type.String(), object: Type.Literal('model'), owned_by: Type.String() },
  { ...open, description: 'A model reachable through the routing config.' },
);
const ModelList = Type.Object(
  { object: Type.Literal('list'), data: Type.Array(Model) },
  { ...open, description: 'The models reachable through the routing config.' },
);

const Message = Type.Object(
  {
    id: Type.String(),
    type: Type.Literal('message'),
    role: Type.Literal('assistant'),
    model: Type.String(),
    content: Type.Array(Type.Object({ type: Type.String() }, open)),
    stop_reason: Nullable(Type.String()),
    usage: Type.Object({ input_tokens: Type.Integer(), output_tokens: Type.Integer() }, open),
  },
  { ...open, description: 'A message (Anthropic Messages API); with `stream: true`, named events from `message_start` to `message_stop`.' },
);
const TokenCount = Type.Object({ input_tokens: Type.Integer() }, { ...open, description: 'The input tokens of a Messages API body.' });
const Response = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('response'),
    status: Type.String(),
    model: Type.String(),
    output: Type.Array(Type.Object({ type: Type.String() }, open)),
  },
  { ...open, description: 'A model response (Responses API); with `stream: true`, named `response.*` events.' },
);

/** The answer of a data-plane route and whether it can stream (`text/event-stream`), by method and URL. */
export const DATA_PLANE_ANSWERS: Readonly<Record<string, { schema: TSchema; streams: boolean }>> = {
  'POST /v1/chat/completions': { schema: ChatCompletion, streams: true },
  'POST /v1/completions': { schema: TextCompletion, streams: true },
  'POST /v1/embeddings': { schema: Embeddings, streams: false },
  'POST /v1/images/generations': { schema: Images, streams: false },
  'POST /v1/moderations': { schema: Moderation, streams: false },
  'POST /v1/rerank': { schema: Rerank, streams: false },
  'GET /v1/models': { schema: ModelList, streams: false },
  'GET /v1/models/*': { schema: Model, streams: false },
  'POST /v1/messages': { schema: Message, streams: true },
  'POST /v1/messages/count_tokens': { schema: TokenCount, streams: false },
  'POST /v1/responses': { schema: Response, streams: true },
  'GET /v1/responses/:response_id': { schema: Response, streams: false },
  'POST /v1/prompts/:promptId/completions': { schema: ChatCompletion, streams: true },
};
