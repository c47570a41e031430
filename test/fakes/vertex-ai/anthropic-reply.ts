import type { ServerResponse } from 'node:http';
import { createHash } from 'node:crypto';
import { sendJson, writeFrames, type FakeFault, type RecordedRequest } from '../shared/fake-server.js';

/**
 * Claude on Vertex AI (`publishers/anthropic/models/{model}:rawPredict` / `:streamRawPredict`): the
 * Anthropic Messages wire format with `anthropic_version: vertex-2023-10-16` in the body and the model
 * in the URL. Deterministic like the other fakes: `echo: <last user text>`, a `tool_use` of the first
 * tool with `{"query": <text>}` when tools are given, `tool said: <content>` after a tool_result.
 * @see https://cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude/use-claude
 * @see https://docs.anthropic.com/en/api/messages-streaming
 */
export function sendAnthropicError(res: ServerResponse, status: number, type: string, message: string): void {
  sendJson(res, status, { type: 'error', error: { type, message } });
}

function tokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((b: any) => (b?.type === 'text' ? b.text : ''))
    .filter(Boolean)
    .join(' ');
}

function invalid(body: any): string | undefined {
  if (body.anthropic_version !== 'vertex-2023-10-16') return 'anthropic_version: vertex-2023-10-16 is required';
  if ('model' in body) return 'model: Extra inputs are not permitted';
  if (typeof body.max_tokens !== 'number') return 'max_tokens: Field required';
  if (!Array.isArray(body.messages) || body.messages.length === 0) return 'messages: Field required';
  return undefined;
}

/** Answers rawPredict (JSON message) or streamRawPredict (Anthropic SSE events). */
export async function answerAnthropic(
  req: RecordedRequest,
  res: ServerResponse,
  fault: FakeFault | undefined,
  model: string,
  stream: boolean,
  frameDelayMs = 0,
): Promise<void> {
  const body = req.body;
  if (body === undefined) return sendAnthropicError(res, 400, 'invalid_request_error', 'Invalid JSON body.');
  const bad = invalid(body);
  if (bad) return sendAnthropicError(res, 400, 'invalid_request_error', bad);
  if (stream !== (body.stream === true))
    return sendAnthropicError(res, 400, 'invalid_request_error', `stream must be ${stream} on this method`);
  const messages: any[] = body.messages;
  const last = messages[messages.length - 1];
  const inputTokens = tokens(JSON.stringify(messages) + JSON.stringify(body.system ?? ''));
  const id = 'msg_vrtx_' + createHash('sha256').update(JSON.stringify(body)).digest('hex').slice(0, 20);
  const results = Array.isArray(last.content) ? last.content.filter((b: any) => b.type === 'tool_result') : [];
  let block: any;
  let stop = 'end_turn';
  if (results.length) block = { type: 'text', text: `tool said: ${textOf(results[0].content)}` };
  else if (Array.isArray(body.tools) && body.tools.length && body.tool_choice?.type !== 'none') {
    block = { type: 'tool_use', id: 'toolu_vrtx_' + id.slice(9, 21), name: body.tools[0].name, input: { query: textOf(last.content) } };
    stop = 'tool_use';
  } else {
    const images = Array.isArray(last.content) ? last.content.filter((b: any) => b.type === 'image').length : 0;
    block = { type: 'text', text: `echo: ${textOf(last.content)}${images ? ` [images: ${images}]` : ''}` };
  }
  const outputTokens = block.type === 'text' ? tokens(block.text) : 12;
  const usage = { input_tokens: inputTokens, output_tokens: outputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  if (!stream) {
    return sendJson(res, 200, {
      id,
      type: 'message',
      role: 'assistant',
      model,
      content: [block],
      stop_reason: stop,
      stop_sequence: null,
      usage,
    });
  }
  const ev = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
  const frames = [
    ev('message_start', {
      type: 'message_start',
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...usage, output_tokens: 1 },
      },
    }),
    ev('ping', { type: 'ping' }),
  ];
  if (block.type === 'text') {
    frames.push(ev('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }));
    for (const piece of block.text.split(/(?<= )/))
      frames.push(ev('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: piece } }));
  } else {
    const json = JSON.stringify(block.input);
    const half = Math.ceil(json.length / 2);
    frames.push(ev('content_block_start', { type: 'content_block_start', index: 0, content_block: { ...block, input: {} } }));
    for (const part of [json.slice(0, half), json.slice(half)]) {
      frames.push(
        ev('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: part } }),
      );
    }
  }
  frames.push(ev('content_block_stop', { type: 'content_block_stop', index: 0 }));
  frames.push(
    ev('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: stop, stop_sequence: null },
      usage: { output_tokens: outputTokens },
    }),
  );
  frames.push(ev('message_stop', { type: 'message_stop' }));
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  await writeFrames(res, frames, fault, frameDelayMs);
}
