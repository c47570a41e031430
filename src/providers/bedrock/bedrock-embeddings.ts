import type { EmbeddingsRequest, EmbeddingsResponse } from '../../foundation/spec/embeddings.js';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { tryParseJson, isObject } from '../../foundation/lib/json.js';
import type { CallContext, EndpointAdapter, UpstreamCall } from '../provider.js';
import { bedrockModelUrl, readBedrockAuth, signBedrockRequest, type BedrockAuth } from './bedrock-auth.js';
import { requireModel } from './bedrock-chat.js';
import { mapBedrockError } from './bedrock-error.js';
import { eachAtMost } from '../../foundation/lib/each-at-most.js';

type Family = 'titan' | 'cohere';

/** Titan text embeddings take one text per call; earlier inputs of a batch are sent this many at a time. */
const TITAN_SIDE_CALL_CONCURRENCY = 8;

interface TitanPartial {
  vectors: number[][];
  tokens: number;
}

/**
 * Results of the side calls a Titan batch made in `buildRequest`, keyed by the request and by the
 * call context, for `mapResponse` to prepend to the last input's answer.
 */
const pending = new WeakMap<object, TitanPartial>();

function familyOf(model: string): Family {
  if (/amazon\.titan-embed/.test(model)) return 'titan';
  if (/cohere\.embed/.test(model)) return 'cohere';
  throw new GatewayError(
    'invalid_request',
    `Bedrock embeddings support Titan (amazon.titan-embed-*) and Cohere (cohere.embed-*) models, not '${model}'.`,
    {
      param: 'model',
    },
  );
}

function inputsOf(req: EmbeddingsRequest): string[] {
  const input = req.input;
  if (typeof input === 'string') return [input];
  if (Array.isArray(input) && input.length > 0 && input.every((x) => typeof x === 'string')) return input as string[];
  throw new GatewayError(
    'invalid_request',
    "Provider 'bedrock' needs 'input' as a string or a non-empty array of strings (token arrays are not supported).",
    {
      param: 'input',
    },
  );
}

function titanBody(model: string, text: string, req: EmbeddingsRequest): string {
  const body: Record<string, unknown> = { inputText: text };
  if (/titan-embed-text-v2/.test(model) && typeof req.dimensions === 'number') body.dimensions = req.dimensions;
  return JSON.stringify(body);
}

async function invokeCall(auth: BedrockAuth, model: string, body: string, ctx: CallContext): Promise<UpstreamCall> {
  const url = bedrockModelUrl(ctx.target, auth.region, model, 'invoke');
  const headers = await signBedrockRequest(auth, url, body, 'application/json', ctx.target.forwardHeaders, new Date(ctx.clock.now()));
  return { url, method: 'POST', headers, body };
}

function readTitan(raw: unknown): { vector: number[]; tokens: number } {
  const obj = isObject(raw) ? raw : {};
  const vector = Array.isArray(obj.embedding) ? (obj.embedding as number[]) : [];
  return { vector, tokens: typeof obj.inputTextTokenCount === 'number' ? obj.inputTextTokenCount : 0 };
}

async function titanSideCalls(
  auth: BedrockAuth,
  model: string,
  texts: string[],
  req: EmbeddingsRequest,
  ctx: CallContext,
): Promise<TitanPartial> {
  const results: Array<{ vector: number[]; tokens: number }> = new Array(texts.length);
  await eachAtMost(texts, TITAN_SIDE_CALL_CONCURRENCY, async (text, i) => {
    const call = await invokeCall(auth, model, titanBody(model, text, req), ctx);
    const res = await ctx.http.sendText(
      { url: call.url, method: call.method, headers: call.headers, body: call.body as string, signal: ctx.signal },
      'bedrock',
    );
    if (res.status < 200 || res.status >= 300) throw mapBedrockError(res.status, res.text, res.headers);
    results[i] = readTitan(tryParseJson(res.text));
  });
  return { vectors: results.map((r) => r.vector), tokens: results.reduce((n, r) => n + r.tokens, 0) };
}

function encode(vector: number[], format: EmbeddingsRequest['encoding_format']): number[] | string {
  return format === 'base64' ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector;
}

/**
 * Builds the InvokeModel call(s): Cohere takes the whole batch (`{texts, input_type}`, default
 * `search_document`, overridable with `input_type`); Titan takes one `{inputText}` per call, so for a
 * batch the earlier inputs are sent here through `ctx.http` and the last one is the returned call.
 * @see https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-titan-embed-text.html
 * @see https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-embed.html
 */
async function buildEmbeddingsRequest(req: EmbeddingsRequest, ctx: CallContext): Promise<UpstreamCall> {
  const auth = readBedrockAuth(ctx.target);
  const model = requireModel(req.model);
  const family = familyOf(model);
  const texts = inputsOf(req);
  pending.delete(req);
  pending.delete(ctx);
  if (family === 'cohere') {
    const inputType = typeof req.input_type === 'string' ? req.input_type : 'search_document';
    return invokeCall(auth, model, JSON.stringify({ texts, input_type: inputType }), ctx);
  }
  if (texts.length > 1) {
    const partial = await titanSideCalls(auth, model, texts.slice(0, -1), req, ctx);
    pending.set(req, partial);
    pending.set(ctx, partial);
  }
  return invokeCall(auth, model, titanBody(model, texts[texts.length - 1]!, req), ctx);
}

function cohereVectors(raw: Record<string, unknown>): number[][] {
  const e = raw.embeddings;
  if (Array.isArray(e)) return e as number[][];
  if (isObject(e) && Array.isArray(e.float)) return e.float as number[][];
  return [];
}

/**
 * Maps InvokeModel answers to the common embeddings list. Titan reports `inputTextTokenCount` per
 * input; Cohere's body carries no token count, so its usage is 0 unless `meta.billed_units` is present.
 */
function mapEmbeddingsResponse(raw: unknown, req: EmbeddingsRequest, ctx: CallContext): EmbeddingsResponse {
  const model = requireModel(req.model);
  const obj = isObject(raw) ? raw : {};
  let vectors: number[][];
  let tokens: number;
  if (familyOf(model) === 'cohere') {
    vectors = cohereVectors(obj);
    const billed = isObject(obj.meta) && isObject(obj.meta.billed_units) ? obj.meta.billed_units.input_tokens : undefined;
    tokens = typeof billed === 'number' ? billed : 0;
  } else {
    const before = pending.get(ctx) ?? pending.get(req) ?? { vectors: [], tokens: 0 };
    pending.delete(req);
    pending.delete(ctx);
    const last = readTitan(obj);
    vectors = [...before.vectors, last.vector];
    tokens = before.tokens + last.tokens;
  }
  return {
    object: 'list',
    data: vectors.map((v, index) => ({ object: 'embedding', index, embedding: encode(v, req.encoding_format) })),
    model,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  };
}

/** The Bedrock embeddings endpoint (InvokeModel with Titan or Cohere embedding models). */
export const bedrockEmbeddings: EndpointAdapter<EmbeddingsRequest, EmbeddingsResponse> = {
  buildRequest: buildEmbeddingsRequest,
  mapResponse: mapEmbeddingsResponse,
};
