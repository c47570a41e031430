import type { ServerResponse } from 'node:http';
import { createHash } from 'node:crypto';
import { FakeServer, sendJson, writeFrames, bearer, type FakeFault, type RecordedRequest } from '../shared/fake-server.js';
import { validateMessagesBody, fakeSignature, FakeBadRequest } from './validate.js';

export { fakeSignature };

/**
 * A fake of the Anthropic Messages API speaking its wire format: `POST /v1/messages` (JSON and the
 * named-event SSE stream), `POST /v1/messages/count_tokens`, `GET /v1/models`, `x-api-key` auth (or `Authorization: Bearer`, as the
 * current SDK sends keys), a required `anthropic-version` header and
 * `{"type":"error","error":{type,message}}` bodies.
 * @see https://docs.anthropic.com/en/api/messages
 * @see https://docs.anthropic.com/en/docs/build-with-claude/streaming
 *
 * Answers are deterministic: text is `echo: <last user text>` (plus ` [images: N]`); with tools and a user
 * turn last it calls the first tool (or the forced one) with `{"query": <text>}`; after tool results it answers
 * `tool said: <result>`. With `thinking` enabled a signed thinking block comes first; signatures of thinking
 * blocks sent back are checked. `stop_sequences` and `max_tokens` cut the text and set `stop_reason`.
 */
export interface FakeAnthropicOptions {
  /** When set, `x-api-key` must equal it; otherwise any non-empty key is accepted. */
  apiKey?: string;
  /** Milliseconds between stream frames. */
  frameDelayMs?: number;
  /** Model ids served by `GET /v1/models`. */
  models?: string[];
  /** Prompt-cache numbers to report in every answer's usage. */
  cacheUsage?: { read: number; creation: number };
}

/** An `error` event sent in place of the rest of the next stream. */
export interface FakeStreamError {
  /** Stream frames sent before the error event. */
  afterFrames: number;
  /** Default `overloaded_error`. */
  type?: string;
  /** Default `Overloaded`. */
  message?: string;
}

export class FakeAnthropic extends FakeServer {
  private readonly streamErrors: FakeStreamError[] = [];
  constructor(readonly options: FakeAnthropicOptions = {}) {
    super((req, res, fault) => handle(this, req, res, fault));
  }
  /** Base URL for a client (the SDK's `baseURL`, the gateway's `custom_host`): the origin, without `/v1`. */
  get url(): string {
    return this.origin;
  }
  /** The next streamed answer sends an `error` event after `afterFrames` frames, then ends. */
  failStreamWithErrorEvent(e: FakeStreamError): void {
    this.streamErrors.push(e);
  }
  /** Takes the next queued stream error, if any. */
  takeStreamError(): FakeStreamError | undefined {
    return this.streamErrors.shift();
  }
  override reset(): void {
    super.reset();
    this.streamErrors.length = 0;
  }
}

export async function startFakeAnthropic(options: FakeAnthropicOptions = {}): Promise<FakeAnthropic> {
  return new FakeAnthropic(options).start();
}

/** An Anthropic error body, for `fake.fail({status, body: anthropicErrorBody(...)})`. */
export function anthropicErrorBody(type: string, message: string): Record<string, unknown> {
  return { type: 'error', error: { type, message }, request_id: 'req_fake' + hash(type + message).slice(0, 20) };
}

function sendError(res: ServerResponse, status: number, type: string, message: string): void {
  sendJson(res, status, anthropicErrorBody(type, message), { 'request-id': 'req_fake_error' });
}

async function handle(fake: FakeAnthropic, req: RecordedRequest, res: ServerResponse, fault: FakeFault | undefined): Promise<void> {
  const opts = fake.options;
  const key = apiKeyOf(req);
  if (!key) return sendError(res, 401, 'authentication_error', 'x-api-key header is required');
  if (opts.apiKey && key !== opts.apiKey) return sendError(res, 401, 'authentication_error', 'invalid x-api-key');
  if (typeof req.headers['anthropic-version'] !== 'string')
    return sendError(res, 400, 'invalid_request_error', 'anthropic-version: header is required');
  if (req.method === 'GET' && req.path === '/v1/models') return listModels(opts, res);
  if (req.method === 'POST' && req.path === '/v1/messages/count_tokens') return countTokens(req.body, res);
  if (req.method !== 'POST' || req.path !== '/v1/messages')
    return sendError(res, 404, 'not_found_error', `Not found: ${req.method} ${req.path}`);
  if (req.body === undefined)
    return sendError(
      res,
      400,
      'invalid_request_error',
      'There was an issue with the format or content of your request: the body is not valid JSON.',
    );
  try {
    validateMessagesBody(req.body);
  } catch (err) {
    if (err instanceof FakeBadRequest) return sendError(res, 400, 'invalid_request_error', err.message);
    throw err;
  }
  const answer = compose(req.body, opts);
  if (!req.body.stream) return sendJson(res, 200, answer, { 'request-id': 'req_fake' + answer.id.slice(8) });
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'request-id': 'req_fake' + answer.id.slice(8),
  });
  let frames = streamFrames(answer);
  const err = fake.takeStreamError();
  if (err)
    frames = [
      ...frames.slice(0, err.afterFrames),
      sseFrame('error', { type: 'error', error: { type: err.type ?? 'overloaded_error', message: err.message ?? 'Overloaded' } }),
    ];
  await writeFrames(res, frames, fault, opts.frameDelayMs);
}

/** The key from `x-api-key`, or from `Authorization: Bearer` (which newer SDKs send for API keys too). */
export function apiKeyOf(req: RecordedRequest): string | undefined {
  const header = req.headers['x-api-key'];
  return typeof header === 'string' && header ? header : bearer(req);
}

function listModels(opts: FakeAnthropicOptions, res: ServerResponse): void {
  const ids = opts.models ?? ['claude-sonnet-4-20250514', 'claude-3-5-haiku-20241022'];
  const data = ids.map((id) => ({ type: 'model', id, display_name: id, created_at: '2025-05-14T00:00:00Z' }));
  sendJson(res, 200, { data, has_more: false, first_id: ids[0] ?? null, last_id: ids[ids.length - 1] ?? null });
}

/**
 * `POST /v1/messages/count_tokens`: `model` and `messages` required, `max_tokens` refused (it is not part of
 * the endpoint); counts like the answers do (characters / 4 of the system prompt and every text block).
 * @see https://docs.anthropic.com/en/api/messages-count-tokens
 */
function countTokens(body: any, res: ServerResponse): void {
  if (!body || typeof body.model !== 'string' || !Array.isArray(body.messages) || body.messages.length === 0) {
    return sendError(res, 400, 'invalid_request_error', 'model and messages are required');
  }
  if ('max_tokens' in body || 'stream' in body)
    return sendError(res, 400, 'invalid_request_error', 'max_tokens, stream: Extra inputs are not permitted');
  const system = typeof body.system === 'string' ? body.system : blockText(body.system);
  const text = [system, ...body.messages.map((m: { content: unknown }) => blockText(m.content))].join(' ');
  sendJson(res, 200, { input_tokens: tokens(text) });
}

export function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function tokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

/** Text of native content (string or blocks): text blocks joined by spaces. */
export function blockText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((b) => b?.type === 'text')
    .map((b) => b.text)
    .join(' ');
}

export interface Answer {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: Array<Record<string, any>>;
  stop_reason: string;
  stop_sequence: string | null;
  usage: { input_tokens: number; output_tokens: number; cache_creation_input_tokens: number; cache_read_input_tokens: number };
}

/** The deterministic answer to a (valid) Messages body; also used by fakes hosting Claude (Bedrock InvokeModel). */
export function compose(body: any, opts: FakeAnthropicOptions): Answer {
  const messages: any[] = body.messages;
  const last = messages[messages.length - 1];
  const lastBlocks: any[] = Array.isArray(last.content) ? last.content : [];
  const results = lastBlocks.filter((b) => b?.type === 'tool_result');
  const text = blockText(last.content);
  const content: Array<Record<string, any>> = [];
  if (body.thinking?.type === 'enabled') {
    const thinking = `Thinking about: ${results.length ? 'the tool result' : text}`;
    content.push({ type: 'thinking', thinking, signature: fakeSignature(thinking) });
  }
  let stopReason = 'end_turn';
  let stopSequence: string | null = null;
  const tools: any[] = Array.isArray(body.tools) ? body.tools : [];
  if (!results.length && tools.length && body.tool_choice?.type !== 'none') {
    const name = body.tool_choice?.type === 'tool' ? body.tool_choice.name : tools[0].name;
    content.push({ type: 'tool_use', id: 'toolu_' + hash(text).slice(0, 20), name, input: { query: text } });
    stopReason = 'tool_use';
  } else {
    const images = lastBlocks.filter((b) => b?.type === 'image').length;
    let reply = results.length
      ? `tool said: ${results.map((r) => blockText(r.content)).join('; ')}`
      : `echo: ${text}${images ? ` [images: ${images}]` : ''}`;
    for (const seq of body.stop_sequences ?? []) {
      const at = reply.indexOf(seq);
      if (at >= 0) {
        reply = reply.slice(0, at);
        stopReason = 'stop_sequence';
        stopSequence = seq;
        break;
      }
    }
    if (stopReason === 'end_turn' && tokens(reply) > body.max_tokens) {
      reply = reply.slice(0, body.max_tokens * 4);
      stopReason = 'max_tokens';
    }
    content.push({ type: 'text', text: reply });
  }
  const promptText = blockText(body.system) + messages.map((m) => blockText(m.content)).join(' ');
  const outputTokens = content.reduce((n, b) => n + (b.type === 'tool_use' ? 8 : tokens(b.text ?? b.thinking ?? '')), 0);
  return {
    id: 'msg_fake' + hash(JSON.stringify(body)).slice(0, 20),
    type: 'message',
    role: 'assistant',
    model: body.model,
    content,
    stop_reason: stopReason,
    stop_sequence: stopSequence,
    usage: {
      input_tokens: tokens(promptText),
      output_tokens: outputTokens,
      cache_creation_input_tokens: opts.cacheUsage?.creation ?? 0,
      cache_read_input_tokens: opts.cacheUsage?.read ?? 0,
    },
  };
}

function sseFrame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

function halves(s: string): [string, string] {
  const h = Math.ceil(s.length / 2);
  return [s.slice(0, h), s.slice(h)];
}

/** The documented event sequence for an answer: message_start, blocks (start, deltas, stop), ping, message_delta, message_stop. */
export function answerEvents(a: Answer): Array<Record<string, unknown> & { type: string }> {
  const events: Array<Record<string, unknown> & { type: string }> = [
    {
      type: 'message_start',
      message: { ...a, content: [], stop_reason: null, stop_sequence: null, usage: { ...a.usage, output_tokens: 1 } },
    },
  ];
  a.content.forEach((block, index) => {
    const delta = (d: Record<string, unknown>) => events.push({ type: 'content_block_delta', index, delta: d });
    const start = (contentBlock: Record<string, unknown>) => {
      events.push({ type: 'content_block_start', index, content_block: contentBlock });
      if (index === 0) events.push({ type: 'ping' });
    };
    if (block.type === 'text') {
      start({ type: 'text', text: '' });
      for (const piece of String(block.text).split(/(?<= )/)) delta({ type: 'text_delta', text: piece });
    } else if (block.type === 'thinking') {
      start({ type: 'thinking', thinking: '' });
      for (const piece of halves(block.thinking)) delta({ type: 'thinking_delta', thinking: piece });
      delta({ type: 'signature_delta', signature: block.signature });
    } else {
      start({ ...block, input: {} });
      delta({ type: 'input_json_delta', partial_json: '' });
      for (const piece of halves(JSON.stringify(block.input))) delta({ type: 'input_json_delta', partial_json: piece });
    }
    events.push({ type: 'content_block_stop', index });
  });
  events.push({
    type: 'message_delta',
    delta: { stop_reason: a.stop_reason, stop_sequence: a.stop_sequence },
    usage: { output_tokens: a.usage.output_tokens },
  });
  events.push({ type: 'message_stop' });
  return events;
}

function streamFrames(a: Answer): string[] {
  return answerEvents(a).map((e) => sseFrame(e.type, e));
}
