import type { ServerResponse } from 'node:http';
import { createHash } from 'node:crypto';
import { FakeServer, sendJson, writeFrames, bearer, type FakeFault, type RecordedRequest } from '../shared/fake-server.js';
import { handleResources } from './resources.js';
import { handleResponses } from './responses.js';
import { handleMedia } from './media.js';

/**
 * A fake of the OpenAI API (and so of every OpenAI-compatible host) speaking its wire format:
 * `/v1/chat/completions` (JSON and SSE), `/v1/completions`, `/v1/embeddings`, `/v1/models`,
 * Bearer auth and `{"error": …}` bodies.
 * @see https://platform.openai.com/docs/api-reference
 *
 * Answers are deterministic: text is `echo: <last user text>`; with tools and a user turn last, it calls
 * the first tool with `{"query": <text>}`; after a tool message it answers `tool said: <content>`.
 */
export interface FakeOpenAIOptions {
  /** When set, requests must carry `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** Embedding for a text; default an 8-dimensional vector from its hash. */
  embed?: (text: string) => number[];
  /** Milliseconds between stream frames. */
  frameDelayMs?: number;
  /** Model ids served by `/v1/models`. */
  models?: string[];
  /** Path prefix before `/chat/completions` etc. Default `/v1`. */
  prefix?: string;
  /** When set, chat usage reports `cost` in dollars (tokens × this), as OpenRouter does. */
  costPerToken?: number;
  /** When set, chat usage reports these cached prompt tokens and reasoning tokens (parts of the prompt and completion counts). */
  usageDetails?: { cachedTokens: number; reasoningTokens: number };
  /**
   * The choice member that names the stop sequence which ended an answer, as vLLM (`stop_reason`) and
   * SGLang (`matched_stop`) report it; unset, the fake says nothing, as OpenAI does. Text is always cut at a `stop` sequence.
   */
  stopMember?: 'stop_reason' | 'matched_stop';
  /** When set, chat streams never carry a usage chunk, even with `stream_options.include_usage` (as some OpenAI-compatible servers do). */
  noStreamUsage?: boolean;
}

export class FakeOpenAI extends FakeServer {
  constructor(readonly options: FakeOpenAIOptions = {}) {
    super((req, res, fault) => handle(this.options, req, res, fault));
  }
  /** Base URL to give a client, e.g. `http://127.0.0.1:1234/v1`. */
  get url(): string {
    return this.origin + (this.options.prefix ?? '/v1');
  }
}

export async function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  return new FakeOpenAI(options).start();
}

function openAIError(
  res: ServerResponse,
  status: number,
  message: string,
  type: string,
  code: string | null,
  param: string | null = null,
): void {
  sendJson(res, status, { error: { message, type, param, code } });
}

async function handle(opts: FakeOpenAIOptions, req: RecordedRequest, res: ServerResponse, fault: FakeFault | undefined): Promise<void> {
  const prefix = opts.prefix ?? '/v1';
  if (opts.apiKey && bearer(req) !== opts.apiKey) {
    return openAIError(res, 401, 'Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key');
  }
  const path = req.path.startsWith(prefix) ? req.path.slice(prefix.length) : req.path;
  if (handleMedia(req, res, path)) return;
  if (await handleResources(opts, req, res, path)) return;
  if (req.method === 'GET' && path === '/models') {
    const ids = opts.models ?? ['gpt-4o', 'gpt-4o-mini', 'text-embedding-3-small'];
    return sendJson(res, 200, {
      object: 'list',
      data: ids.map((id) => ({ id, object: 'model', created: 1700000000, owned_by: 'openai' })),
    });
  }
  if (req.method !== 'POST') return openAIError(res, 404, `Unknown path ${req.path}`, 'invalid_request_error', 'unknown_url');
  if (req.body === undefined)
    return openAIError(res, 400, 'We could not parse the JSON body of your request.', 'invalid_request_error', null);
  if (path === '/chat/completions') return chat(opts, req, res, fault);
  if (path === '/completions') return completions(opts, req, res, fault);
  if (path === '/embeddings') return embeddings(opts, req, res);
  if (path === '/responses') return handleResponses(req, res, fault, opts.frameDelayMs);
  return openAIError(res, 404, `Unknown path ${req.path}`, 'invalid_request_error', 'unknown_url');
}

/** Text of a message's content (string or parts). */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .filter((p) => p?.type === 'text')
      .map((p) => p.text)
      .join(' ');
  return '';
}

/** The fakes' token count: a quarter of the characters, at least 1. */
export function tokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

/** The deterministic answer of the OpenAI-shaped fakes to a chat body. */
export interface Reply {
  content: string | null;
  toolCall?: { id: string; name: string; arguments: string };
  promptTokens: number;
  completionTokens: number;
}

/**
 * The deterministic answer to a chat body: `tool said: …` after a tool message, a call of the first
 * tool when tools are offered, else `echo: <last user text>` (with `[images: N]`, and with
 * `[system: …]` when `echoSystem` is set, as the Azure fakes do).
 */
export function reply(body: any, opts: { echoSystem?: boolean } = {}): Reply {
  const messages: any[] = body.messages;
  const last = messages[messages.length - 1];
  const promptTokens = messages.reduce((n, m) => n + tokens(textOf(m.content)), 0);
  if (last?.role === 'tool') {
    const content = `tool said: ${textOf(last.content)}`;
    return { content, promptTokens, completionTokens: tokens(content) };
  }
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  const text = textOf(lastUser?.content);
  if (Array.isArray(body.tools) && body.tools.length && body.tool_choice !== 'none') {
    const name = body.tools[0].function.name;
    return {
      content: null,
      toolCall: { id: 'call_' + hash(text).slice(0, 12), name, arguments: JSON.stringify({ query: text }) },
      promptTokens,
      completionTokens: 8,
    };
  }
  const images = Array.isArray(lastUser?.content) ? lastUser.content.filter((p: any) => p?.type === 'image_url').length : 0;
  const system = opts.echoSystem ? messages.find((m) => m.role === 'system' || m.role === 'developer') : undefined;
  const content = `echo: ${text}${images ? ` [images: ${images}]` : ''}${system ? ` [system: ${textOf(system.content)}]` : ''}`;
  return { content, promptTokens, completionTokens: tokens(content) };
}

/** Hex SHA-256 (ids of the fakes' answers). */
export function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function usage(r: Reply, opts: FakeOpenAIOptions = {}) {
  const d = opts.usageDetails;
  const prompt = r.promptTokens + (d?.cachedTokens ?? 0);
  const completion = r.completionTokens + (d?.reasoningTokens ?? 0);
  const total = prompt + completion;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: total,
    ...(d
      ? { prompt_tokens_details: { cached_tokens: d.cachedTokens }, completion_tokens_details: { reasoning_tokens: d.reasoningTokens } }
      : {}),
    ...(opts.costPerToken ? { cost: total * opts.costPerToken } : {}),
  };
}

async function chat(opts: FakeOpenAIOptions, req: RecordedRequest, res: ServerResponse, fault: FakeFault | undefined): Promise<void> {
  const body = req.body;
  if (!Array.isArray(body.messages))
    return openAIError(
      res,
      400,
      "Missing required parameter: 'messages'.",
      'invalid_request_error',
      'missing_required_parameter',
      'messages',
    );
  const model = body.model ?? 'gpt-4o';
  const r = reply(body);
  const stops: string[] = typeof body.stop === 'string' ? [body.stop] : Array.isArray(body.stop) ? body.stop : [];
  const matched =
    r.content === null
      ? undefined
      : stops
          .map((s) => ({ s, at: r.content!.indexOf(s) }))
          .filter((m) => m.at >= 0)
          .sort((a, b) => a.at - b.at)[0];
  if (matched) r.content = r.content!.slice(0, matched.at);
  const said = matched && opts.stopMember ? { [opts.stopMember]: matched.s } : {};
  const id = 'chatcmpl-fake' + hash(JSON.stringify(body)).slice(0, 16);
  const created = 1700000000;
  const finish = r.toolCall ? 'tool_calls' : 'stop';
  if (!body.stream) {
    return sendJson(res, 200, {
      id,
      object: 'chat.completion',
      created,
      model,
      system_fingerprint: 'fp_fake',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: r.content,
            refusal: null,
            ...(r.toolCall
              ? {
                  tool_calls: [
                    { id: r.toolCall.id, type: 'function', function: { name: r.toolCall.name, arguments: r.toolCall.arguments } },
                  ],
                }
              : {}),
          },
          logprobs: null,
          finish_reason: finish,
          ...said,
        },
      ],
      usage: usage(r, opts),
    });
  }
  const base = { id, object: 'chat.completion.chunk', created, model, system_fingerprint: 'fp_fake' };
  const frame = (choices: unknown[], extra: Record<string, unknown> = {}) => `data: ${JSON.stringify({ ...base, choices, ...extra })}\n\n`;
  const frames: string[] = [
    frame([{ index: 0, delta: { role: 'assistant', content: '', refusal: null }, logprobs: null, finish_reason: null }]),
  ];
  if (r.toolCall) {
    const args = r.toolCall.arguments;
    const half = Math.ceil(args.length / 2);
    frames.push(
      frame([
        {
          index: 0,
          delta: { tool_calls: [{ index: 0, id: r.toolCall.id, type: 'function', function: { name: r.toolCall.name, arguments: '' } }] },
          logprobs: null,
          finish_reason: null,
        },
      ]),
    );
    frames.push(
      frame([
        {
          index: 0,
          delta: { tool_calls: [{ index: 0, function: { arguments: args.slice(0, half) } }] },
          logprobs: null,
          finish_reason: null,
        },
      ]),
    );
    frames.push(
      frame([
        { index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: args.slice(half) } }] }, logprobs: null, finish_reason: null },
      ]),
    );
  } else {
    for (const piece of (r.content ?? '').split(/(?<= )/))
      frames.push(frame([{ index: 0, delta: { content: piece }, logprobs: null, finish_reason: null }]));
  }
  frames.push(frame([{ index: 0, delta: {}, logprobs: null, finish_reason: finish, ...said }]));
  if (body.stream_options?.include_usage && !opts.noStreamUsage) frames.push(frame([], { usage: usage(r, opts) }));
  frames.push('data: [DONE]\n\n');
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
  await writeFrames(res, frames, fault, opts.frameDelayMs);
}

async function completions(
  opts: FakeOpenAIOptions,
  req: RecordedRequest,
  res: ServerResponse,
  fault: FakeFault | undefined,
): Promise<void> {
  const body = req.body;
  if (body.prompt === undefined)
    return openAIError(res, 400, "Missing required parameter: 'prompt'.", 'invalid_request_error', 'missing_required_parameter', 'prompt');
  const prompt = Array.isArray(body.prompt) ? body.prompt.join(' ') : String(body.prompt);
  const text = ` echo: ${prompt}`;
  const u = { prompt_tokens: tokens(prompt), completion_tokens: tokens(text), total_tokens: tokens(prompt) + tokens(text) };
  const base = {
    id: 'cmpl-fake' + hash(prompt).slice(0, 16),
    object: 'text_completion',
    created: 1700000000,
    model: body.model ?? 'gpt-3.5-turbo-instruct',
    system_fingerprint: 'fp_fake',
  };
  if (!body.stream) return sendJson(res, 200, { ...base, choices: [{ index: 0, text, logprobs: null, finish_reason: 'stop' }], usage: u });
  const frames = text
    .split(/(?<= )/)
    .map((piece) => `data: ${JSON.stringify({ ...base, choices: [{ index: 0, text: piece, logprobs: null, finish_reason: null }] })}\n\n`);
  frames.push(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, text: '', logprobs: null, finish_reason: 'stop' }] })}\n\n`);
  if (body.stream_options?.include_usage) frames.push(`data: ${JSON.stringify({ ...base, choices: [], usage: u })}\n\n`);
  frames.push('data: [DONE]\n\n');
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  await writeFrames(res, frames, fault, opts.frameDelayMs);
}

/** The default fake embedding: 8 numbers from the text's hash, unit length. */
export function hashEmbedding(text: string): number[] {
  const h = createHash('sha256').update(text).digest();
  const v = Array.from({ length: 8 }, (_, i) => h[i]! / 255 - 0.5);
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

function embeddings(opts: FakeOpenAIOptions, req: RecordedRequest, res: ServerResponse): void {
  const input = req.body.input;
  if (input === undefined)
    return openAIError(res, 400, "Missing required parameter: 'input'.", 'invalid_request_error', 'missing_required_parameter', 'input');
  const texts: string[] = Array.isArray(input)
    ? input.map((x: unknown) => (typeof x === 'string' ? x : JSON.stringify(x)))
    : [String(input)];
  const embed = opts.embed ?? hashEmbedding;
  const data = texts.map((t, index) => {
    const vector = embed(t);
    const embedding = req.body.encoding_format === 'base64' ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector;
    return { object: 'embedding', index, embedding };
  });
  const n = texts.reduce((s, t) => s + tokens(t), 0);
  sendJson(res, 200, {
    object: 'list',
    data,
    model: req.body.model ?? 'text-embedding-3-small',
    usage: { prompt_tokens: n, total_tokens: n },
  });
}
