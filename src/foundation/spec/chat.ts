/**
 * The common chat schema (OpenAI Chat Completions) as types. No I/O.
 * @see https://platform.openai.com/docs/api-reference/chat
 */

/** A text part of a message's content. */
export interface TextPart {
  type: 'text';
  text: string;
}

/** An image part: `url` is an http(s) URL or a `data:` URL with base64 content. */
export interface ImagePart {
  type: 'image_url';
  image_url: { url: string; detail?: 'auto' | 'low' | 'high' };
}

/** Any other part type a provider may accept (input_audio, file, ...), forwarded as is where supported. */
export interface OtherPart {
  type: string;
  [key: string]: unknown;
}

export type ContentPart = TextPart | ImagePart | OtherPart;

/** A tool call emitted by the assistant. `arguments` is a JSON string. */
export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatMessage {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool' | 'function';
  content?: string | ContentPart[] | null;
  name?: string;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  /** Reasoning text some providers return with an assistant turn (kept for multi-turn thinking). */
  reasoning_content?: string;
  [key: string]: unknown;
}

export interface FunctionTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean };
}

export type ToolChoice = 'none' | 'auto' | 'required' | { type: 'function'; function: { name: string } };

/** A chat completion request in the common schema. Unknown fields are kept and forwarded where the provider speaks the same schema. */
export interface ChatCompletionRequest {
  model?: string;
  messages: ChatMessage[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean } | null;
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
  top_p?: number;
  n?: number;
  stop?: string | string[] | null;
  presence_penalty?: number;
  frequency_penalty?: number;
  logit_bias?: Record<string, number> | null;
  logprobs?: boolean;
  top_logprobs?: number;
  seed?: number;
  user?: string;
  tools?: FunctionTool[];
  tool_choice?: ToolChoice;
  parallel_tool_calls?: boolean;
  response_format?: {
    type: 'text' | 'json_object' | 'json_schema';
    json_schema?: { name?: string; schema?: Record<string, unknown>; strict?: boolean };
  };
  /** Extended thinking (Anthropic-style) in the common schema. */
  thinking?: { type: 'enabled' | 'disabled'; budget_tokens?: number };
  reasoning_effort?: 'minimal' | 'low' | 'medium' | 'high';
  [key: string]: unknown;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number; cache_creation_tokens?: number; [k: string]: unknown };
  completion_tokens_details?: {
    reasoning_tokens?: number;
    accepted_prediction_tokens?: number;
    rejected_prediction_tokens?: number;
    [k: string]: unknown;
  };
}

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'function_call' | (string & {});

export interface ChatCompletionMessage {
  role: 'assistant';
  content: string | null;
  refusal?: string | null;
  tool_calls?: ToolCall[];
  reasoning_content?: string;
  content_blocks?: Array<{ type: 'text'; text: string } | { type: 'thinking'; thinking: string; signature?: string }>;
  [key: string]: unknown;
}

export interface ChatCompletionChoice {
  index: number;
  message: ChatCompletionMessage;
  finish_reason: FinishReason | null;
  logprobs: unknown | null;
}

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  system_fingerprint?: string | null;
  choices: ChatCompletionChoice[];
  usage?: Usage;
  [key: string]: unknown;
}

export interface ChunkToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function?: { name?: string; arguments?: string };
}

export interface ChatCompletionChunkChoice {
  index: number;
  delta: {
    role?: 'assistant';
    content?: string | null;
    reasoning_content?: string;
    tool_calls?: ChunkToolCallDelta[];
    refusal?: string | null;
  };
  finish_reason: FinishReason | null;
  logprobs?: unknown | null;
}

export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  system_fingerprint?: string | null;
  choices: ChatCompletionChunkChoice[];
  usage?: Usage | null;
  [key: string]: unknown;
}
