import type { ServerResponse } from 'node:http';
import { createHash, randomUUID } from 'node:crypto';
import { FakeServer, sendJson, writeFrames, bearer, type FakeFault, type RecordedRequest } from '../shared/fake-server.js';
import { hashEmbedding } from '../openai/server.js';

/**
 * A fake of Cohere's v2 API in its wire format: `POST /v2/chat` (JSON, and SSE streams of `event: <type>` +
 * `data: <json>` frames: message-start, content-start/delta/end, tool-plan-delta, tool-call-start/delta/end,
 * message-end), `POST /v2/embed`, `POST /v2/rerank`, Bearer auth and `{"message": …}` error bodies.
 * @see https://docs.cohere.com/reference/chat
 *
 * Deterministic: text is `echo: <last user text>` (plus `[images: n]` and `[system: …]` notes); with tools and
 * a user turn last, it plans and calls the first tool with `{"query": <text>}`; after a tool result it answers
 * `tool said: <content>`. `max_tokens` cuts the answer to that many words with `MAX_TOKENS`.
 */
export interface FakeCohereOptions {
  /** When set, requests must carry `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  frameDelayMs?: number;
}

export class FakeCohere extends FakeServer {
  /** Messages of streams that will end with `finish_reason: ERROR` after their first content delta. */
  readonly streamErrors: string[] = [];
  constructor(readonly options: FakeCohereOptions = {}) {
    super((req, res, fault) => handle(this, req, res, fault));
  }
  /** Base URL (`custom_host`, or the SDK's `environment`). */
  get url(): string {
    return this.origin;
  }
  /** Makes the next stream fail mid-way with a `message-end` of `finish_reason: ERROR`. */
  failNextStream(message: string): void {
    this.streamErrors.push(message);
  }
}

export async function startFakeCohere(options: FakeCohereOptions = {}): Promise<FakeCohere> {
  return new FakeCohere(options).start();
}

function cohereError(res: ServerResponse, status: number, message: string): void {
  sendJson(res, status, { id: randomUUID(), message });
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .filter((p) => p?.type === 'text')
      .map((p) => p.text)
      .join(' ');
  return '';
}

const tokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));
const hash = (text: string) => createHash('sha256').update(text).digest('hex');

interface Reply {
  text: string;
  plan?: string;
  toolCall?: { id: string; name: string; arguments: string };
  finish: 'COMPLETE' | 'MAX_TOKENS' | 'TOOL_CALL';
  inputTokens: number;
  outputTokens: number;
}

function reply(body: any): Reply {
  const messages: any[] = body.messages;
  const inputTokens = messages.reduce((n, m) => n + tokens(textOf(m.content) || m.tool_plan || ''), 0);
  const last = messages[messages.length - 1];
  const done = (text: string): Reply => {
    const words = text.split(/(?<= )/);
    const cut = typeof body.max_tokens === 'number' && words.length > body.max_tokens;
    const out = cut ? words.slice(0, body.max_tokens).join('') : text;
    return { text: out, finish: cut ? 'MAX_TOKENS' : 'COMPLETE', inputTokens, outputTokens: tokens(out) };
  };
  if (last?.role === 'tool') return done(`tool said: ${textOf(last.content)}`);
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  const text = textOf(lastUser?.content);
  if (Array.isArray(body.tools) && body.tools.length && body.tool_choice !== 'NONE') {
    const name = body.tools[0].function.name;
    const toolCall = { id: `${name}_${hash(text).slice(0, 12)}`, name, arguments: JSON.stringify({ query: text }) };
    return { text: '', plan: `I will use the ${name} tool.`, toolCall, finish: 'TOOL_CALL', inputTokens, outputTokens: 12 };
  }
  const images = Array.isArray(lastUser?.content) ? lastUser.content.filter((p: any) => p?.type === 'image_url').length : 0;
  const system = messages.find((m) => m.role === 'system');
  return done(`echo: ${text}${images ? ` [images: ${images}]` : ''}${system ? ` [system: ${textOf(system.content)}]` : ''}`);
}

function usage(r: Reply) {
  return {
    billed_units: { input_tokens: r.inputTokens, output_tokens: r.outputTokens },
    tokens: { input_tokens: r.inputTokens + 60, output_tokens: r.outputTokens },
  };
}

async function chat(fake: FakeCohere, req: RecordedRequest, res: ServerResponse, fault: FakeFault | undefined): Promise<void> {
  const body = req.body;
  if (typeof body.model !== 'string') return cohereError(res, 400, 'invalid request: model must be specified');
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    return cohereError(res, 400, 'invalid request: messages must not be empty');
  const r = reply(body);
  const id = randomUUID();
  const toolCalls = r.toolCall
    ? [{ id: r.toolCall.id, type: 'function', function: { name: r.toolCall.name, arguments: r.toolCall.arguments } }]
    : undefined;
  if (!body.stream) {
    const message = r.toolCall
      ? { role: 'assistant', tool_plan: r.plan, tool_calls: toolCalls }
      : { role: 'assistant', content: [{ type: 'text', text: r.text }] };
    return sendJson(res, 200, { id, message, finish_reason: r.finish, usage: usage(r) });
  }
  const frame = (data: Record<string, unknown>) => `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
  const frames = [
    frame({
      id,
      type: 'message-start',
      delta: { message: { role: 'assistant', content: [], tool_plan: '', tool_calls: [], citations: [] } },
    }),
  ];
  const error = fake.streamErrors.shift();
  if (r.toolCall) {
    for (const piece of r.plan!.split(/(?<= )/)) frames.push(frame({ type: 'tool-plan-delta', delta: { message: { tool_plan: piece } } }));
    frames.push(
      frame({
        type: 'tool-call-start',
        index: 0,
        delta: { message: { tool_calls: { id: r.toolCall.id, type: 'function', function: { name: r.toolCall.name, arguments: '' } } } },
      }),
    );
    const args = r.toolCall.arguments;
    const half = Math.ceil(args.length / 2);
    for (const part of [args.slice(0, half), args.slice(half)])
      frames.push(frame({ type: 'tool-call-delta', index: 0, delta: { message: { tool_calls: { function: { arguments: part } } } } }));
    frames.push(frame({ type: 'tool-call-end', index: 0 }));
  } else {
    frames.push(frame({ type: 'content-start', index: 0, delta: { message: { content: { type: 'text', text: '' } } } }));
    const pieces = r.text.split(/(?<= )/);
    for (const piece of error ? pieces.slice(0, 1) : pieces)
      frames.push(frame({ type: 'content-delta', index: 0, delta: { message: { content: { text: piece } } } }));
    if (!error) frames.push(frame({ type: 'content-end', index: 0 }));
  }
  frames.push(
    frame({
      type: 'message-end',
      delta: error ? { error, finish_reason: 'ERROR', usage: usage(r) } : { finish_reason: r.finish, usage: usage(r) },
    }),
  );
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  await writeFrames(res, frames, fault, fake.options.frameDelayMs);
}

function embed(req: RecordedRequest, res: ServerResponse): void {
  const body = req.body;
  if (typeof body.model !== 'string') return cohereError(res, 400, 'invalid request: model must be specified');
  if (!Array.isArray(body.texts)) return cohereError(res, 400, 'invalid request: texts or images or inputs must be specified');
  if (typeof body.input_type !== 'string')
    return cohereError(res, 400, 'invalid request: valid input_type must be provided with the provided model');
  const types: string[] = Array.isArray(body.embedding_types) ? body.embedding_types : ['float'];
  const embeddings: Record<string, number[][]> = {};
  for (const t of types)
    embeddings[t] = body.texts.map((x: string) => (t === 'float' ? hashEmbedding(x) : hashEmbedding(x).map((v) => Math.round(v * 127))));
  const n = body.texts.reduce((s: number, t: string) => s + tokens(t), 0);
  sendJson(res, 200, {
    id: randomUUID(),
    texts: body.texts,
    embeddings,
    meta: { api_version: { version: '2' }, billed_units: { input_tokens: n } },
    response_type: 'embeddings_by_type',
  });
}

function rerank(req: RecordedRequest, res: ServerResponse): void {
  const { model, query, documents, top_n } = req.body;
  if (typeof model !== 'string' || typeof query !== 'string' || !Array.isArray(documents))
    return cohereError(res, 400, 'invalid request: model, query and documents are required');
  const words = new Set(query.toLowerCase().split(/\W+/).filter(Boolean));
  const scored = documents.map((d: string, index: number) => {
    const overlap = String(d)
      .toLowerCase()
      .split(/\W+/)
      .filter((w) => words.has(w)).length;
    return { index, relevance_score: Math.round((overlap / (words.size || 1)) * 1000) / 1000 };
  });
  scored.sort((a, b) => b.relevance_score - a.relevance_score || a.index - b.index);
  sendJson(res, 200, {
    id: randomUUID(),
    results: scored.slice(0, top_n ?? scored.length),
    meta: { api_version: { version: '2' }, billed_units: { search_units: 1 } },
  });
}

function models(res: ServerResponse): void {
  sendJson(res, 200, {
    models: [
      {
        name: 'command-a-03-2025',
        endpoints: ['generate', 'chat', 'summarize'],
        finetuned: false,
        context_length: 256000,
        features: ['tools', 'json_mode'],
      },
      { name: 'embed-v4.0', endpoints: ['embed'], finetuned: false, context_length: 128000, features: null },
    ],
  });
}

async function handle(fake: FakeCohere, req: RecordedRequest, res: ServerResponse, fault: FakeFault | undefined): Promise<void> {
  if (fake.options.apiKey && bearer(req) !== fake.options.apiKey) return cohereError(res, 401, 'invalid api token');
  if (req.method === 'GET' && req.path === '/v1/models') return models(res);
  if (req.method !== 'POST') return cohereError(res, 404, `404 page not found: ${req.path}`);
  if (req.body === undefined) return cohereError(res, 400, 'invalid request: could not parse the body as JSON');
  if (req.path === '/v2/chat') return chat(fake, req, res, fault);
  if (req.path === '/v2/embed') return embed(req, res);
  if (req.path === '/v2/rerank') return rerank(req, res);
  return cohereError(res, 404, `404 page not found: ${req.path}`);
}
