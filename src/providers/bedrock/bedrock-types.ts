/**
 * The subset of the Bedrock Runtime Converse wire types the gateway writes and reads.
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html
 */

/** One content block of a Converse message (a union: exactly one member is set). */
export interface BedrockContentBlock {
  text?: string;
  image?: { format: string; source: { bytes: string } };
  toolUse?: { toolUseId: string; name: string; input: unknown };
  toolResult?: { toolUseId: string; content: Array<{ text: string } | { json: unknown }>; status?: 'success' | 'error' };
  reasoningContent?: { reasoningText?: { text: string; signature?: string }; redactedContent?: string };
  cachePoint?: { type: 'default' };
}

/** One Converse message. */
export interface BedrockMessage {
  role: 'user' | 'assistant';
  content: BedrockContentBlock[];
}

/** A system prompt block. */
export type BedrockSystemBlock = { text: string } | { cachePoint: { type: 'default' } };

/** A tool definition in `toolConfig.tools`. */
export interface BedrockTool {
  toolSpec: { name: string; description?: string; inputSchema: { json: Record<string, unknown> } };
}

/** `toolConfig.toolChoice`. */
export type BedrockToolChoice = { auto: Record<string, never> } | { any: Record<string, never> } | { tool: { name: string } };

/** The body of `POST /model/{modelId}/converse` and `/converse-stream`. */
export interface BedrockConverseRequest {
  messages: BedrockMessage[];
  system?: BedrockSystemBlock[];
  inferenceConfig?: { maxTokens?: number; temperature?: number; topP?: number; stopSequences?: string[] };
  toolConfig?: { tools: BedrockTool[]; toolChoice?: BedrockToolChoice };
  additionalModelRequestFields?: Record<string, unknown>;
}

/** Token counts of a Converse answer (`usage`, or the stream's `metadata.usage`). */
export interface BedrockUsage {
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  cacheReadInputTokens?: number;
  cacheWriteInputTokens?: number;
}

/** The answer of `POST /model/{modelId}/converse`. */
export interface BedrockConverseResponse {
  output?: { message?: { role: 'assistant'; content?: BedrockContentBlock[] } };
  stopReason?: string;
  usage?: BedrockUsage;
  metrics?: { latencyMs?: number };
}
