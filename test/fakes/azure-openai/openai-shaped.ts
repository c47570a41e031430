import type { ServerResponse } from 'node:http';
import { sendJson, writeFrames, type FakeFault } from '../shared/fake-server.js';
import { hash, hashEmbedding, reply as openAIReply, tokens } from '../openai/server.js';

/**
 * OpenAI-shaped answers shared by the Azure fakes (Azure OpenAI and Azure AI model inference): the same
 * deterministic behaviour as the OpenAI fake (echo, first tool called, "tool said: …"), with Azure's
 * content-filter annotations when asked.
 */
export interface OpenAIShapedOptions {
  /** Add Azure OpenAI's `prompt_filter_results` / `content_filter_results` annotations. */
  contentFilter?: boolean;
  /** Model name reported in answers (Azure reports the underlying model, not the deployment). */
  model: string;
  frameDelayMs?: number;
}

const SAFE = {
  hate: { filtered: false, severity: 'safe' },
  self_harm: { filtered: false, severity: 'safe' },
  sexual: { filtered: false, severity: 'safe' },
  violence: { filtered: false, severity: 'safe' },
};

/** Answers a chat request (JSON or SSE). Returns false when the body lacks `messages`. */
export async function answerChat(
  res: ServerResponse,
  body: any,
  fault: FakeFault | undefined,
  opts: OpenAIShapedOptions,
): Promise<boolean> {
  if (!Array.isArray(body?.messages)) return false;
  const r = openAIReply(body, { echoSystem: true });
  const id = 'chatcmpl-fake' + hash(JSON.stringify(body)).slice(0, 16);
  const created = 1700000000;
  const finish = r.toolCall ? 'tool_calls' : 'stop';
  const usage = { prompt_tokens: r.promptTokens, completion_tokens: r.completionTokens, total_tokens: r.promptTokens + r.completionTokens };
  const toolCalls = r.toolCall
    ? [{ id: r.toolCall.id, type: 'function', function: { name: r.toolCall.name, arguments: r.toolCall.arguments } }]
    : undefined;
  if (!body.stream) {
    sendJson(res, 200, {
      id,
      object: 'chat.completion',
      created,
      model: opts.model,
      system_fingerprint: 'fp_fake',
      ...(opts.contentFilter ? { prompt_filter_results: [{ prompt_index: 0, content_filter_results: SAFE }] } : {}),
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: r.content, refusal: null, ...(toolCalls ? { tool_calls: toolCalls } : {}) },
          logprobs: null,
          finish_reason: finish,
          ...(opts.contentFilter ? { content_filter_results: r.toolCall ? {} : SAFE } : {}),
        },
      ],
      usage,
    });
    return true;
  }
  const base = { id, object: 'chat.completion.chunk', created, model: opts.model, system_fingerprint: 'fp_fake' };
  const frame = (choices: unknown[], extra: Record<string, unknown> = {}) => `data: ${JSON.stringify({ ...base, choices, ...extra })}\n\n`;
  const frames: string[] = [];
  if (opts.contentFilter) {
    frames.push(
      `data: ${JSON.stringify({ choices: [], created: 0, id: '', model: '', object: '', prompt_filter_results: [{ prompt_index: 0, content_filter_results: SAFE }] })}\n\n`,
    );
  }
  frames.push(frame([{ index: 0, delta: { role: 'assistant', content: '', refusal: null }, logprobs: null, finish_reason: null }]));
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
  frames.push(frame([{ index: 0, delta: {}, logprobs: null, finish_reason: finish }]));
  if (body.stream_options?.include_usage) frames.push(frame([], { usage }));
  frames.push('data: [DONE]\n\n');
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  await writeFrames(res, frames, fault, opts.frameDelayMs);
  return true;
}

/** Answers a legacy completions request (JSON or SSE). Returns false when the body lacks `prompt`. */
export async function answerCompletions(
  res: ServerResponse,
  body: any,
  fault: FakeFault | undefined,
  opts: OpenAIShapedOptions,
): Promise<boolean> {
  if (body?.prompt === undefined) return false;
  const prompt = Array.isArray(body.prompt) ? body.prompt.join(' ') : String(body.prompt);
  const text = ` echo: ${prompt}`;
  const usage = { prompt_tokens: tokens(prompt), completion_tokens: tokens(text), total_tokens: tokens(prompt) + tokens(text) };
  const base = { id: 'cmpl-fake' + hash(prompt).slice(0, 16), object: 'text_completion', created: 1700000000, model: opts.model };
  if (!body.stream) {
    sendJson(res, 200, { ...base, choices: [{ index: 0, text, logprobs: null, finish_reason: 'stop' }], usage });
    return true;
  }
  const frames = text
    .split(/(?<= )/)
    .map((piece) => `data: ${JSON.stringify({ ...base, choices: [{ index: 0, text: piece, logprobs: null, finish_reason: null }] })}\n\n`);
  frames.push(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, text: '', logprobs: null, finish_reason: 'stop' }] })}\n\n`);
  frames.push('data: [DONE]\n\n');
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  await writeFrames(res, frames, fault, opts.frameDelayMs);
  return true;
}

/** Answers an embeddings request. Returns false when the body lacks `input`. */
export function answerEmbeddings(res: ServerResponse, body: any, opts: OpenAIShapedOptions): boolean {
  const input = body?.input;
  if (input === undefined) return false;
  const texts: string[] = Array.isArray(input)
    ? input.map((x: unknown) => (typeof x === 'string' ? x : JSON.stringify(x)))
    : [String(input)];
  const data = texts.map((t, index) => {
    const vector = hashEmbedding(t);
    const embedding = body.encoding_format === 'base64' ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector;
    return { object: 'embedding', index, embedding };
  });
  const n = texts.reduce((s, t) => s + tokens(t), 0);
  sendJson(res, 200, { object: 'list', data, model: opts.model, usage: { prompt_tokens: n, total_tokens: n } });
  return true;
}
