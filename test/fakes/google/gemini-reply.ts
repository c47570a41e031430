import type { ServerResponse } from 'node:http';
import { createHash } from 'node:crypto';
import { sendJson, writeFrames, type FakeFault, type RecordedRequest } from '../shared/fake-server.js';
import { hashEmbedding } from '../openai/server.js';

/**
 * Gemini `generateContent` / `streamGenerateContent` / `embedContent` / `batchEmbedContents` answers,
 * shared by the Gemini API fake and the Vertex AI fake (same bodies on both).
 * @see https://ai.google.dev/api/generate-content
 *
 * Deterministic: text is `echo: <last user text>` (plus ` [images: n]` for media parts); with function
 * declarations (mode not NONE) and a user turn last, it calls the first allowed function with
 * `{"query": <text>}`; after functionResponse parts it answers `tool said: <response>`. With
 * `thinkingConfig.includeThoughts` a thought part `thinking about: <text>` comes first.
 */
export interface GeminiReplyOptions {
  /** Milliseconds between stream frames. */
  frameDelayMs?: number;
  /** Embedding for a text; default an 8-dimensional vector from its hash. */
  embed?: (text: string) => number[];
  /** Reported as `cachedContentTokenCount` on every answer when set. */
  cachedTokens?: number;
  /** For streams: after this many frames send an `{"error": …}` frame (500 INTERNAL) and end the body. */
  streamErrorAfter?: number;
}

/** A Google API error body. */
export function googleErrorBody(code: number, status: string, message: string, details?: unknown[]): Record<string, unknown> {
  return { error: { code, message, status, ...(details ? { details } : {}) } };
}

export function sendGoogleError(res: ServerResponse, code: number, status: string, message: string, details?: unknown[]): void {
  sendJson(res, code, googleErrorBody(code, status, message, details));
}

const REQUEST_KEYS = new Set([
  'contents',
  'tools',
  'toolConfig',
  'safetySettings',
  'systemInstruction',
  'generationConfig',
  'cachedContent',
  'labels',
  'model',
]);
const GENERATION_KEYS = new Set([
  'stopSequences',
  'responseMimeType',
  'responseSchema',
  'responseJsonSchema',
  'responseModalities',
  'candidateCount',
  'maxOutputTokens',
  'temperature',
  'topP',
  'topK',
  'seed',
  'presencePenalty',
  'frequencyPenalty',
  'responseLogprobs',
  'logprobs',
  'thinkingConfig',
  'mediaResolution',
  'speechConfig',
]);
const SCHEMA_KEYS = new Set([
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'maxItems',
  'minItems',
  'properties',
  'required',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'example',
  'anyOf',
  'propertyOrdering',
  'default',
  'items',
  'minimum',
  'maximum',
]);

/** Finds a key the real API rejects with `Invalid JSON payload received. Unknown name …`. */
function unknownSchemaKey(schema: any, path: string): string | undefined {
  if (!schema || typeof schema !== 'object') return undefined;
  for (const key of Object.keys(schema)) {
    if (!SCHEMA_KEYS.has(key)) return `${path}.${key}`;
  }
  for (const [k, v] of Object.entries(schema.properties ?? {})) {
    const bad = unknownSchemaKey(v, `${path}.properties[${k}]`);
    if (bad) return bad;
  }
  return (
    unknownSchemaKey(schema.items, `${path}.items`) ??
    (schema.anyOf ?? []).map((s: unknown, i: number) => unknownSchemaKey(s, `${path}.anyOf[${i}]`)).find(Boolean)
  );
}

/** Validates a GenerateContentRequest the way the real API does for the mistakes an adapter can make. */
function invalidRequest(body: any, model: string): string | undefined {
  for (const key of Object.keys(body))
    if (!REQUEST_KEYS.has(key)) return `Invalid JSON payload received. Unknown name "${key}": Cannot find field.`;
  for (const key of Object.keys(body.generationConfig ?? {})) {
    if (!GENERATION_KEYS.has(key)) return `Invalid JSON payload received. Unknown name "${key}" at 'generation_config': Cannot find field.`;
  }
  if (!Array.isArray(body.contents) || body.contents.length === 0) return '* GenerateContentRequest.contents: contents is not specified';
  for (const c of body.contents) {
    if (c.role !== undefined && c.role !== 'user' && c.role !== 'model') return 'Please use a valid role: user, model.';
    if (!Array.isArray(c.parts) || c.parts.length === 0)
      return '* GenerateContentRequest.contents.parts: contents.parts must not be empty.';
  }
  const bad =
    unknownSchemaKey(body.generationConfig?.responseSchema, 'generation_config.response_schema') ??
    (body.tools ?? [])
      .flatMap((t: any) => t.functionDeclarations ?? [])
      .map((d: any) => unknownSchemaKey(d.parameters, `tools.function_declarations[${d.name}].parameters`))
      .find(Boolean);
  if (bad) return `Invalid JSON payload received. Unknown name "${bad.split('.').pop()}" at '${bad}': Cannot find field.`;
  if (/gemini-3/.test(model)) {
    const i = body.contents.findIndex((c: any) => c.parts.some((p: any) => p.functionCall && !p.thoughtSignature));
    if (i >= 0) return `Function call is missing a thought_signature in functionCall parts. Position ${i}.`;
  }
  return undefined;
}

function tokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

interface GeminiReply {
  parts: any[];
  thought?: string;
  finishReason: string;
  promptTokens: number;
  outputTokens: number;
}

function reply(body: any, model: string): GeminiReply {
  const contents: any[] = body.contents;
  const all = [...(body.systemInstruction?.parts ?? []), ...contents.flatMap((c) => c.parts)];
  const promptTokens = all.reduce(
    (n: number, p: any) => n + (typeof p.text === 'string' ? tokens(p.text) : p.inlineData || p.fileData ? 258 : 4),
    0,
  );
  const last = contents[contents.length - 1];
  const responses = last.parts.filter((p: any) => p.functionResponse);
  if (responses.length) {
    const r = responses[0].functionResponse.response;
    const text = `tool said: ${typeof r?.content === 'string' ? r.content : JSON.stringify(r)}`;
    return { parts: [{ text }], finishReason: 'STOP', promptTokens, outputTokens: tokens(text) };
  }
  const text = last.parts
    .filter((p: any) => typeof p.text === 'string')
    .map((p: any) => p.text)
    .join(' ');
  const thought = body.generationConfig?.thinkingConfig?.includeThoughts ? `thinking about: ${text}` : undefined;
  const decls = (body.tools ?? []).flatMap((t: any) => t.functionDeclarations ?? []);
  const fc = body.toolConfig?.functionCallingConfig ?? {};
  if (decls.length && fc.mode !== 'NONE' && last.role !== 'model') {
    const name = fc.allowedFunctionNames?.[0] ?? decls[0].name;
    const part: any = { functionCall: { name, args: { query: text } } };
    if (thought || /gemini-3/.test(model)) part.thoughtSignature = Buffer.from('sig:' + hash(text).slice(0, 16)).toString('base64');
    return { parts: [part], thought, finishReason: 'STOP', promptTokens, outputTokens: 8 };
  }
  const media = last.parts.filter((p: any) => p.inlineData || p.fileData).length;
  let answer = `echo: ${text}${media ? ` [images: ${media}]` : ''}`;
  let finishReason = 'STOP';
  const max = body.generationConfig?.maxOutputTokens;
  if (typeof max === 'number' && tokens(answer) > max) {
    answer = answer.slice(0, max * 4);
    finishReason = 'MAX_TOKENS';
  }
  return { parts: [{ text: answer }], thought, finishReason, promptTokens, outputTokens: tokens(answer) };
}

function usage(r: GeminiReply, opts: GeminiReplyOptions, n: number, final = true): Record<string, number> {
  const thoughts = r.thought ? tokens(r.thought) : 0;
  const out = final ? r.outputTokens * n : 0;
  return {
    promptTokenCount: r.promptTokens,
    ...(final ? { candidatesTokenCount: out } : {}),
    totalTokenCount: r.promptTokens + out + (final ? thoughts : 0),
    ...(opts.cachedTokens ? { cachedContentTokenCount: opts.cachedTokens } : {}),
    ...(thoughts && final ? { thoughtsTokenCount: thoughts } : {}),
  };
}

/** Answers one generateContent or streamGenerateContent call for `model`. */
export async function answerGenerateContent(
  req: RecordedRequest,
  res: ServerResponse,
  fault: FakeFault | undefined,
  model: string,
  stream: boolean,
  opts: GeminiReplyOptions,
): Promise<void> {
  const body = req.body;
  if (body === undefined) return sendGoogleError(res, 400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.');
  const invalid = invalidRequest(body, model);
  if (invalid) return sendGoogleError(res, 400, 'INVALID_ARGUMENT', invalid);
  const r = reply(body, model);
  const n = body.generationConfig?.candidateCount ?? 1;
  const responseId = hash(JSON.stringify(body)).slice(0, 22);
  const thoughtPart = r.thought ? [{ text: r.thought, thought: true }] : [];
  if (!stream) {
    const candidates = Array.from({ length: n }, (_, index) => ({
      content: { parts: [...thoughtPart, ...r.parts], role: 'model' },
      finishReason: r.finishReason,
      index,
    }));
    return sendJson(res, 200, { candidates, usageMetadata: usage(r, opts, n), modelVersion: model, responseId });
  }
  const frames: any[] = [];
  const frame = (parts: any[], last: boolean) => ({
    candidates: Array.from({ length: n }, (_, index) => ({
      content: { parts, role: 'model' },
      ...(last ? { finishReason: r.finishReason } : {}),
      index,
    })),
    usageMetadata: usage(r, opts, n, last),
    modelVersion: model,
    responseId,
  });
  if (r.thought) frames.push(frame(thoughtPart, false));
  if (r.parts[0].functionCall) frames.push(frame(r.parts, true));
  else {
    const pieces: string[] = r.parts[0].text.split(/(?<= )/);
    pieces.forEach((piece, i) => frames.push(frame([{ text: piece }], i === pieces.length - 1)));
  }
  if (opts.streamErrorAfter !== undefined)
    frames.splice(
      opts.streamErrorAfter,
      frames.length,
      googleErrorBody(
        500,
        'INTERNAL',
        'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting',
      ),
    );
  if (req.query.get('alt') === 'sse') {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    return writeFrames(
      res,
      frames.map((f) => `data: ${JSON.stringify(f)}\r\n\r\n`),
      fault,
      opts.frameDelayMs,
    );
  }
  res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' });
  return writeFrames(
    res,
    frames.map((f, i) => `${i === 0 ? '[' : ',\r\n'}${JSON.stringify(f)}${i === frames.length - 1 ? ']' : ''}`),
    fault,
    opts.frameDelayMs,
  );
}

function embedText(content: any): string {
  return (content?.parts ?? []).map((p: any) => p.text ?? '').join(' ');
}

function vector(text: string, opts: GeminiReplyOptions, dims?: number): number[] {
  const v = (opts.embed ?? hashEmbedding)(text);
  return typeof dims === 'number' ? v.slice(0, dims) : v;
}

/** Answers embedContent (`{embedding}`) or batchEmbedContents (`{embeddings}`). */
export function answerEmbeddings(req: RecordedRequest, res: ServerResponse, method: string, model: string, opts: GeminiReplyOptions): void {
  const body = req.body;
  if (method === 'embedContent') {
    if (!body?.content) return sendGoogleError(res, 400, 'INVALID_ARGUMENT', '* EmbedContentRequest.content: content is not specified');
    return sendJson(res, 200, { embedding: { values: vector(embedText(body.content), opts, body.outputDimensionality) } });
  }
  if (!Array.isArray(body?.requests))
    return sendGoogleError(res, 400, 'INVALID_ARGUMENT', '* BatchEmbedContentsRequest.requests: requests is not specified');
  const wrong = body.requests.find((r: any) => r.model !== `models/${model}`);
  if (wrong)
    return sendGoogleError(res, 400, 'INVALID_ARGUMENT', `Model in request does not match: ${String(wrong.model)} vs models/${model}.`);
  sendJson(res, 200, {
    embeddings: body.requests.map((r: any) => ({ values: vector(embedText(r.content), opts, r.outputDimensionality) })),
  });
}
