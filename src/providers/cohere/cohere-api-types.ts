/**
 * The native Cohere v2 wire types this provider reads and writes (only the fields it uses).
 * @see https://docs.cohere.com/reference/chat
 */

/** Chat model used when the request names none. */
export const COHERE_DEFAULT_CHAT_MODEL = 'command-a-03-2025';

/** A content block of a v2 message. */
export type CohereContentPart =
  { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string; detail?: 'auto' | 'low' | 'high' } };

export interface CohereToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type CohereMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | CohereContentPart[] }
  | { role: 'assistant'; content?: string; tool_plan?: string; tool_calls?: CohereToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface CohereTool {
  type: 'function';
  function: { name: string; description?: string; parameters: Record<string, unknown> };
}

/** Body of `POST /v2/chat`. */
export interface CohereChatRequest {
  model: string;
  messages: CohereMessage[];
  stream?: boolean;
  tools?: CohereTool[];
  strict_tools?: boolean;
  tool_choice?: 'REQUIRED' | 'NONE';
  response_format?: { type: 'text' } | { type: 'json_object'; json_schema?: Record<string, unknown> };
  max_tokens?: number;
  stop_sequences?: string[];
  temperature?: number;
  seed?: number;
  frequency_penalty?: number;
  presence_penalty?: number;
  k?: number;
  p?: number;
  logprobs?: boolean;
  thinking?: { type: 'enabled' | 'disabled'; token_budget?: number };
}

/** `usage` of a chat answer or of the `message-end` event. */
export interface CohereUsage {
  billed_units?: { input_tokens?: number; output_tokens?: number };
  tokens?: { input_tokens?: number; output_tokens?: number };
  cached_tokens?: number;
}

/** Answer of `POST /v2/chat` without streaming. */
export interface CohereChatResponse {
  id: string;
  finish_reason: string;
  message: {
    role: 'assistant';
    content?: Array<{ type: 'text'; text: string } | { type: 'thinking'; thinking: string }>;
    tool_plan?: string;
    tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string | null } }>;
    citations?: unknown[];
  };
  usage?: CohereUsage;
}
