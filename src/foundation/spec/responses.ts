/**
 * The OpenAI Responses API as types (the parts the gateway reads and writes). No I/O.
 * @see https://platform.openai.com/docs/api-reference/responses
 */

/** A content part of an input message (`input_text`, `input_image`, `input_file`) or of an assistant turn (`output_text`, `refusal`). */
export interface ResponseContentPart {
  type: string;
  text?: string;
  image_url?: string | null;
  file_id?: string | null;
  detail?: string;
  [key: string]: unknown;
}

/** One item of a response's input or output: a message, a function call, a function call output, a reasoning item, ... */
export interface ResponseItem {
  type: string;
  id?: string;
  role?: string;
  status?: string;
  content?: string | ResponseContentPart[];
  call_id?: string;
  name?: string;
  arguments?: string;
  output?: string | ResponseContentPart[];
  [key: string]: unknown;
}

/** A tool offered to the model. Function tools carry `name`, `description`, `parameters`, `strict`. */
export interface ResponseTool {
  type: string;
  name?: string;
  description?: string | null;
  parameters?: Record<string, unknown> | null;
  strict?: boolean | null;
  [key: string]: unknown;
}

export type ResponseToolChoice = 'none' | 'auto' | 'required' | { type: string; name?: string; [key: string]: unknown };

/** `text.format`: plain text, JSON object mode, or a JSON schema. */
export interface ResponseTextFormat {
  type: 'text' | 'json_object' | 'json_schema';
  name?: string;
  schema?: Record<string, unknown>;
  strict?: boolean;
  description?: string;
}

/** Body of `POST /v1/responses`. Unknown fields are kept and forwarded to hosts that serve the API natively. */
export interface ResponsesRequest {
  model?: string;
  input?: string | ResponseItem[];
  instructions?: string | null;
  tools?: ResponseTool[];
  tool_choice?: ResponseToolChoice;
  parallel_tool_calls?: boolean;
  previous_response_id?: string | null;
  stream?: boolean;
  max_output_tokens?: number | null;
  truncation?: 'auto' | 'disabled' | null;
  metadata?: Record<string, string> | null;
  store?: boolean | null;
  temperature?: number | null;
  top_p?: number | null;
  reasoning?: { effort?: string | null; summary?: string | null; generate_summary?: string | null } | null;
  text?: { format?: ResponseTextFormat; verbosity?: string } | null;
  user?: string;
  include?: string[];
  [key: string]: unknown;
}

export interface ResponseUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number; cache_write_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

export type ResponseStatus = 'completed' | 'failed' | 'in_progress' | 'incomplete';

/** The stored response object (gateway-spec.md, "Stored response object"). */
export interface ResponseObject {
  id: string;
  object: 'response';
  created_at: number;
  status: ResponseStatus;
  error: { code: string; message: string } | null;
  incomplete_details: { reason: string } | null;
  model: string;
  instructions: string | null;
  metadata: Record<string, string>;
  temperature: number | null;
  top_p: number | null;
  tools: ResponseTool[];
  tool_choice: ResponseToolChoice;
  parallel_tool_calls: boolean;
  output: ResponseItem[];
  output_text: string;
  user?: string;
  previous_response_id: string | null;
  reasoning: { effort: string | null; generate_summary: string | null; summary?: string | null } | null;
  max_output_tokens: number | null;
  text: { format: ResponseTextFormat };
  truncation: 'auto' | 'disabled';
  usage?: ResponseUsage;
  [key: string]: unknown;
}

/** One event of a Responses stream (`type` is `response.created`, `response.output_text.delta`, ...; `sequence_number` counts from 0). */
export interface ResponseStreamEvent {
  type: string;
  sequence_number: number;
  [key: string]: unknown;
}

/** Terminal event types of a Responses stream. */
export const RESPONSE_TERMINAL_EVENTS: ReadonlySet<string> = new Set(['response.completed', 'response.incomplete', 'response.failed']);
