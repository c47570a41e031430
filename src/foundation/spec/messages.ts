/**
 * The Anthropic Messages API as an inbound schema of the gateway (`POST /v1/messages`), as types. No I/O.
 * Only the members the gateway reads or writes are named; others pass through untouched.
 * @see https://docs.anthropic.com/en/api/messages
 */

/** A `cache_control` marker on a block. */
export interface MessagesCacheControl {
  type: 'ephemeral';
  ttl?: string;
}

export interface MessagesTextBlock {
  type: 'text';
  text: string;
  cache_control?: MessagesCacheControl;
  [key: string]: unknown;
}

/** A media source: base64 data with its media type, or a URL. */
export type MessagesSource = { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string };

export interface MessagesImageBlock {
  type: 'image';
  source: MessagesSource;
  cache_control?: MessagesCacheControl;
}

export interface MessagesDocumentBlock {
  type: 'document';
  source: MessagesSource | { type: 'text'; media_type?: string; data: string };
  title?: string;
  cache_control?: MessagesCacheControl;
}

export interface MessagesToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown>;
  /** Who called the tool; a built answer says `direct` (the model itself). */
  caller?: { type: 'direct' };
}

export interface MessagesToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content?: string | Array<MessagesTextBlock | MessagesImageBlock>;
  is_error?: boolean;
  cache_control?: MessagesCacheControl;
}

export interface MessagesThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature?: string;
}

export interface MessagesRedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
}

export type MessagesContentBlock =
  | MessagesTextBlock
  | MessagesImageBlock
  | MessagesDocumentBlock
  | MessagesToolUseBlock
  | MessagesToolResultBlock
  | MessagesThinkingBlock
  | MessagesRedactedThinkingBlock;

/** One turn. `system` is a mid-conversation instruction (text blocks only) at that point of the conversation. */
export interface MessagesTurn {
  role: 'user' | 'assistant' | 'system';
  content: string | MessagesContentBlock[];
}

export interface MessagesTool {
  name: string;
  description?: string;
  input_schema?: Record<string, unknown>;
  /** Server tools (`web_search_20250305`, ...) carry a `type`; only Anthropic targets can run them. */
  type?: string;
  cache_control?: MessagesCacheControl;
  [key: string]: unknown;
}

export type MessagesToolChoice =
  | { type: 'auto'; disable_parallel_tool_use?: boolean }
  | { type: 'any'; disable_parallel_tool_use?: boolean }
  | { type: 'tool'; name: string; disable_parallel_tool_use?: boolean }
  | { type: 'none' };

/** A `POST /v1/messages` body. */
export interface MessagesRequest {
  model: string;
  max_tokens: number;
  messages: MessagesTurn[];
  system?: string | MessagesTextBlock[];
  stop_sequences?: string[];
  stream?: boolean;
  temperature?: number;
  top_p?: number;
  top_k?: number;
  tools?: MessagesTool[];
  tool_choice?: MessagesToolChoice;
  /** `adaptive` lets the model choose how much to think (its depth set by `output_config.effort`). */
  thinking?: { type: 'enabled'; budget_tokens: number } | { type: 'disabled' } | { type: 'adaptive'; display?: string };
  /** Output settings: `effort` (`low` … `max`) and `format` (a JSON schema the answer follows). */
  output_config?: { effort?: string; format?: { type: string; schema?: Record<string, unknown> } };
  metadata?: { user_id?: string };
  [key: string]: unknown;
}

/** The `usage` of a message (the members a built message leaves unknown are null, as the API's own types have them). */
export interface MessagesUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation?: { ephemeral_1h_input_tokens: number; ephemeral_5m_input_tokens: number } | null;
  output_tokens_details?: { thinking_tokens: number } | null;
  server_tool_use?: Record<string, number> | null;
  service_tier?: string | null;
  inference_geo?: string | null;
  speed?: string | null;
}

export type MessagesStopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'pause_turn' | 'refusal';

/** The answer of `POST /v1/messages` (non-streamed). */
export interface MessagesResponse {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: Array<MessagesTextBlock | MessagesToolUseBlock | MessagesThinkingBlock | MessagesRedactedThinkingBlock>;
  stop_reason: MessagesStopReason | null;
  stop_sequence: string | null;
  stop_details?: null;
  container?: null;
  diagnostics?: null;
  usage: MessagesUsage;
}

/** One server-sent event of a streamed answer: its `event:` name is the `type` of its data. */
export interface MessagesStreamEvent {
  type:
    | 'message_start'
    | 'content_block_start'
    | 'content_block_delta'
    | 'content_block_stop'
    | 'message_delta'
    | 'message_stop'
    | 'ping'
    | 'error';
  [key: string]: unknown;
}

/** The answer of `POST /v1/messages/count_tokens`. */
export interface MessagesCountTokensResponse {
  input_tokens: number;
}
