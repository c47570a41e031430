import { createHash } from 'node:crypto';

/**
 * The Converse logic of the Bedrock fake: request validation with Bedrock's messages, and the
 * deterministic answer (echo, first-tool call, "tool said: …", optional reasoning) as content blocks.
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html
 */

/** A validation failure: answered as 400 ValidationException. */
export class ValidationError extends Error {}

export interface ConverseReply {
  content: Array<Record<string, unknown>>;
  stopReason: string;
  usage: { inputTokens: number; outputTokens: number; totalTokens: number; cacheReadInputTokens?: number; cacheWriteInputTokens?: number };
  /** The parts as they are streamed. */
  reasoning?: { text: string; signature: string };
  text?: string;
  toolUse?: { toolUseId: string; name: string; input: Record<string, unknown> };
}

const BLOCK_KEYS = ['text', 'image', 'toolUse', 'toolResult', 'reasoningContent', 'cachePoint', 'document', 'video', 'guardContent'];
const IMAGE_FORMATS = ['png', 'jpeg', 'gif', 'webp'];

export function tokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function validateBlock(block: any, where: string, hasToolConfig: boolean): void {
  if (typeof block !== 'object' || block === null)
    throw new ValidationError(`Malformed input request: ${where} must be an object, please reformat your input and try again.`);
  const keys = Object.keys(block).filter((k) => BLOCK_KEYS.includes(k));
  if (keys.length !== 1 || Object.keys(block).length !== 1)
    throw new ValidationError(`Malformed input request: ${where} must have exactly one member, please reformat your input and try again.`);
  if ('text' in block && (typeof block.text !== 'string' || !block.text.trim())) {
    throw new ValidationError(`The text field in the ContentBlock object at ${where} is blank. Add text to the text field, and try again.`);
  }
  if ('image' in block) {
    const img = block.image;
    if (!IMAGE_FORMATS.includes(img?.format))
      throw new ValidationError(`Malformed input request: ${where}.image.format must be one of png, jpeg, gif, webp.`);
    const bytes = img?.source?.bytes;
    if (typeof bytes !== 'string' || !/^[A-Za-z0-9+/]+={0,2}$/.test(bytes))
      throw new ValidationError(`Malformed input request: ${where}.image.source.bytes must be base64.`);
  }
  if (('toolUse' in block || 'toolResult' in block) && !hasToolConfig) {
    throw new ValidationError('The toolConfig field must be defined when using toolUse and toolResult content blocks.');
  }
  if ('toolUse' in block && (typeof block.toolUse?.toolUseId !== 'string' || typeof block.toolUse?.input !== 'object')) {
    throw new ValidationError(`Malformed input request: ${where}.toolUse needs toolUseId, name and an object input.`);
  }
}

/** Checks a Converse body as Bedrock does; throws ValidationError with Bedrock's wording. */
export function validateConverse(body: any): void {
  if (typeof body !== 'object' || body === null)
    throw new ValidationError('Malformed input request, please reformat your input and try again.');
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0)
    throw new ValidationError(
      'A conversation must start with a user message. Try again with a conversation that starts with a user message.',
    );
  if (messages[0].role !== 'user')
    throw new ValidationError(
      'A conversation must start with a user message. Try again with a conversation that starts with a user message.',
    );
  const tools = body.toolConfig?.tools;
  if (body.toolConfig !== undefined) {
    if (!Array.isArray(tools) || tools.length === 0)
      throw new ValidationError('Malformed input request: toolConfig.tools must have at least one tool.');
    for (const t of tools) {
      if (typeof t?.toolSpec?.name !== 'string' || typeof t.toolSpec.inputSchema?.json !== 'object')
        throw new ValidationError('Malformed input request: each tool needs toolSpec.name and toolSpec.inputSchema.json.');
    }
    const choice = body.toolConfig.toolChoice;
    if (choice?.tool && !tools.some((t: any) => t.toolSpec.name === choice.tool.name))
      throw new ValidationError(`Tool choice '${choice.tool.name}' is not one of the tools.`);
  }
  messages.forEach((m: any, i: number) => {
    if (m.role !== 'user' && m.role !== 'assistant')
      throw new ValidationError(`Malformed input request: messages.${i}.role must be user or assistant.`);
    if (i > 0 && messages[i - 1].role === m.role) {
      throw new ValidationError(
        'A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.',
      );
    }
    if (!Array.isArray(m.content) || m.content.length === 0)
      throw new ValidationError(`Malformed input request: messages.${i}.content must not be empty.`);
    m.content.forEach((b: any, j: number) => validateBlock(b, `messages.${i}.content.${j}`, body.toolConfig !== undefined));
  });
  if (
    body.system !== undefined &&
    (!Array.isArray(body.system) || body.system.some((s: any) => typeof s?.text !== 'string' && !s?.cachePoint))
  ) {
    throw new ValidationError('Malformed input request: system must be a list of text blocks.');
  }
  const max = body.inferenceConfig?.maxTokens;
  if (max !== undefined && (!Number.isInteger(max) || max < 1))
    throw new ValidationError('The maximum tokens you requested exceeds the model limit or is not valid.');
}

function textOf(blocks: any[]): string {
  return blocks
    .filter((b) => typeof b.text === 'string')
    .map((b) => b.text)
    .join(' ');
}

/** Builds the deterministic answer to a (validated) Converse body. */
export function converseReply(body: any, opts: { cacheReadInputTokens?: number; cacheWriteInputTokens?: number }): ConverseReply {
  const messages: any[] = body.messages;
  const last = messages[messages.length - 1];
  const systemText = (body.system ?? []).map((s: any) => s.text ?? '').join(' ');
  const inputTokens = messages.reduce((n, m) => n + tokens(textOf(m.content)), systemText ? tokens(systemText) : 0);
  const toolResults = last.role === 'user' ? last.content.filter((b: any) => b.toolResult) : [];
  const userText = last.role === 'user' ? textOf(last.content) : '';
  const images = last.role === 'user' ? last.content.filter((b: any) => b.image).length : 0;
  const reply: ConverseReply = { content: [], stopReason: 'end_turn', usage: { inputTokens, outputTokens: 0, totalTokens: 0 } };
  const thinking = body.additionalModelRequestFields?.thinking;
  if (thinking?.type === 'enabled') {
    reply.reasoning = { text: `thinking about: ${userText}`, signature: 'sig' + hash(userText).slice(0, 16) };
    reply.content.push({ reasoningContent: { reasoningText: { text: reply.reasoning.text, signature: reply.reasoning.signature } } });
  }
  const tools = body.toolConfig?.tools;
  if (toolResults.length) {
    reply.text = `tool said: ${toolResults.map((b: any) => textOf(b.toolResult.content ?? [])).join(' ')}`;
  } else if (Array.isArray(tools) && tools.length) {
    const name = body.toolConfig.toolChoice?.tool?.name ?? tools[0].toolSpec.name;
    reply.toolUse = { toolUseId: 'tooluse_' + hash(userText).slice(0, 22), name, input: { query: userText } };
    reply.stopReason = 'tool_use';
  } else {
    reply.text = `echo: ${userText}${images ? ` [images: ${images}]` : ''}`;
  }
  const max = body.inferenceConfig?.maxTokens;
  if (reply.text && typeof max === 'number' && tokens(reply.text) > max) {
    reply.text = reply.text.slice(0, max * 4);
    reply.stopReason = 'max_tokens';
  }
  if (reply.text) reply.content.push({ text: reply.text });
  if (reply.toolUse) reply.content.push({ toolUse: reply.toolUse });
  const outputTokens = reply.toolUse ? 12 : tokens(reply.text ?? '') + (reply.reasoning ? tokens(reply.reasoning.text) : 0);
  reply.usage.outputTokens = outputTokens;
  reply.usage.totalTokens = inputTokens + outputTokens + (opts.cacheReadInputTokens ?? 0) + (opts.cacheWriteInputTokens ?? 0);
  if (opts.cacheReadInputTokens !== undefined) reply.usage.cacheReadInputTokens = opts.cacheReadInputTokens;
  if (opts.cacheWriteInputTokens !== undefined) reply.usage.cacheWriteInputTokens = opts.cacheWriteInputTokens;
  return reply;
}
