import type { ServerResponse } from 'node:http';
import { createHash } from 'node:crypto';
import { FakeServer, sendJson, writeFrames, bearer, type FakeFault, type RecordedRequest } from '../shared/fake-server.js';
import { verifySigV4, type FakeAwsCredentials } from './verify-sigv4.js';
import { encodeEvent, encodeException } from './event-stream.js';
import { ValidationError, converseReply, tokens, validateConverse, type ConverseReply } from './converse.js';
import { answerBedrockImage, answerBedrockRerank } from './media.js';
import { answerAnthropicInvoke } from './anthropic-invoke.js';

/**
 * A fake of AWS Bedrock Runtime speaking its wire format: `POST /model/{modelId}/converse` (JSON),
 * `/converse-stream` (binary `application/vnd.amazon.eventstream` frames), `/invoke` (Titan and
 * Cohere embeddings, Titan and Stability images, Claude in the Messages format) and
 * `/invoke-with-response-stream` (Claude, Anthropic events in `chunk` frames), and the Agent Runtime's `POST /rerank`. Every request's SigV4 signature is verified against the known credentials;
 * errors are `{"message": …}` bodies typed by the `x-amzn-errortype` header.
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_Operations_Amazon_Bedrock_Runtime.html
 */
export interface FakeBedrockOptions {
  credentials?: FakeAwsCredentials;
  region?: string;
  /** When set, `Authorization: Bearer <apiKey>` (a Bedrock API key) is accepted too. */
  apiKey?: string;
  /** Allowed clock skew of x-amz-date; default 15 minutes. */
  maxSkewMs?: number;
  /** Reported in usage when set. */
  cacheReadInputTokens?: number;
  cacheWriteInputTokens?: number;
  /** Milliseconds between stream frames. */
  frameDelayMs?: number;
  /** Length of fake embeddings (Titan v2 honours the request's `dimensions`). Default 8. */
  dimensions?: number;
}

/** Makes the next streamed answer (converse-stream or invoke-with-response-stream) send `afterEvents` events, then an exception frame. */
export interface FakeStreamException {
  afterEvents: number;
  /** A ConverseStream exception member, e.g. `modelStreamErrorException`, `throttlingException`. */
  exceptionType: string;
  message: string;
}

export const FAKE_AWS_CREDENTIALS: Required<Pick<FakeAwsCredentials, 'accessKeyId' | 'secretAccessKey'>> = {
  accessKeyId: 'AKIDFAKEBEDROCK00001',
  secretAccessKey: 'fake/secret/key/for/bedrock/tests/0000000',
};

const ERROR_NAMESPACE = 'http://internal.amazon.com/coral/com.amazon.bedrock/';

/** A FakeFault answering like Bedrock does with an error type and status. */
export function bedrockFault(status: number, type: string, message: string, headers: Record<string, string> = {}): FakeFault {
  return {
    status,
    body: { message },
    headers: { 'x-amzn-errortype': `${type}:${ERROR_NAMESPACE}`, 'x-amzn-requestid': 'fault-request', ...headers },
  };
}

export function sendBedrockError(res: ServerResponse, status: number, type: string, message: string): void {
  sendJson(res, status, { message }, { 'x-amzn-errortype': `${type}:${ERROR_NAMESPACE}`, 'x-amzn-requestid': 'fake-request-id' });
}

export class FakeBedrock extends FakeServer {
  readonly streamExceptions: FakeStreamException[] = [];

  constructor(readonly options: FakeBedrockOptions = {}) {
    super((req, res, fault) => handle(this, req, res, fault));
  }

  get credentials(): FakeAwsCredentials {
    return this.options.credentials ?? FAKE_AWS_CREDENTIALS;
  }

  get region(): string {
    return this.options.region ?? 'us-east-1';
  }

  /** Base URL to give a client (`custom_host`, SDK `endpoint`). */
  get url(): string {
    return this.origin;
  }

  /** Queues an exception event for the next streamed answer. */
  failStream(e: FakeStreamException): void {
    this.streamExceptions.push(e);
  }

  override reset(): void {
    super.reset();
    this.streamExceptions.length = 0;
  }
}

export async function startFakeBedrock(options: FakeBedrockOptions = {}): Promise<FakeBedrock> {
  return new FakeBedrock(options).start();
}

async function handle(fake: FakeBedrock, req: RecordedRequest, res: ServerResponse, fault: FakeFault | undefined): Promise<void> {
  const opts = fake.options;
  const token = bearer(req);
  if (!(opts.apiKey && token === opts.apiKey)) {
    const failure = await verifySigV4(req, fake.credentials, { region: fake.region, service: 'bedrock', maxSkewMs: opts.maxSkewMs });
    if (failure) return sendBedrockError(res, 403, failure.type, failure.message);
  }
  if (req.method === 'POST' && req.path === '/rerank') return answerBedrockRerank(req.body, res, sendBedrockError);
  const m = /^\/model\/([^/]+)\/(converse|converse-stream|invoke|invoke-with-response-stream)$/.exec(req.path);
  if (req.method !== 'POST' || !m)
    return sendBedrockError(res, 404, 'UnknownOperationException', `Unknown operation ${req.method} ${req.path}`);
  const modelId = decodeURIComponent(m[1]!);
  let body: any;
  try {
    body = JSON.parse(req.rawBody.toString('utf8'));
  } catch {
    return sendBedrockError(res, 400, 'ValidationException', 'Malformed input request, please reformat your input and try again.');
  }
  if (/(^|[.:/])anthropic\./.test(modelId) && (m[2] === 'invoke' || m[2] === 'invoke-with-response-stream')) {
    const exception = m[2] === 'invoke' ? undefined : fake.streamExceptions.shift();
    return answerAnthropicInvoke(modelId, body, m[2] !== 'invoke', res, sendBedrockError, fault, exception, opts.frameDelayMs);
  }
  if (m[2] === 'invoke-with-response-stream')
    return sendBedrockError(res, 400, 'ValidationException', 'The model does not support streaming.');
  if (m[2] === 'invoke') return invoke(opts, modelId, body, res);
  try {
    validateConverse(body);
  } catch (err) {
    if (err instanceof ValidationError) return sendBedrockError(res, 400, 'ValidationException', err.message);
    throw err;
  }
  const reply = converseReply(body, opts);
  const headers = { 'x-amzn-requestid': 'req-' + createHash('sha256').update(req.rawBody).digest('hex').slice(0, 16) };
  if (m[2] === 'converse') {
    return sendJson(
      res,
      200,
      {
        output: { message: { role: 'assistant', content: reply.content } },
        stopReason: reply.stopReason,
        usage: reply.usage,
        metrics: { latencyMs: 42 },
      },
      headers,
    );
  }
  let frames = streamFrames(reply);
  const exception = fake.streamExceptions.shift();
  if (exception) frames = [...frames.slice(0, exception.afterEvents), encodeException(exception.exceptionType, exception.message)];
  res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', ...headers });
  await writeFrames(res, frames, fault, opts.frameDelayMs);
}

function halves(s: string): string[] {
  const half = Math.ceil(s.length / 2);
  return [s.slice(0, half), s.slice(half)].filter(Boolean);
}

/** The ConverseStream events of an answer, each a binary frame. */
export function streamFrames(reply: ConverseReply): Uint8Array[] {
  const frames = [encodeEvent('messageStart', { role: 'assistant' })];
  let index = 0;
  if (reply.reasoning) {
    for (const piece of halves(reply.reasoning.text))
      frames.push(encodeEvent('contentBlockDelta', { contentBlockIndex: index, delta: { reasoningContent: { text: piece } } }));
    frames.push(
      encodeEvent('contentBlockDelta', { contentBlockIndex: index, delta: { reasoningContent: { signature: reply.reasoning.signature } } }),
    );
    frames.push(encodeEvent('contentBlockStop', { contentBlockIndex: index++ }));
  }
  if (reply.text) {
    for (const piece of reply.text.split(/(?<= )/))
      frames.push(encodeEvent('contentBlockDelta', { contentBlockIndex: index, delta: { text: piece } }));
    frames.push(encodeEvent('contentBlockStop', { contentBlockIndex: index++ }));
  }
  if (reply.toolUse) {
    const { toolUseId, name, input } = reply.toolUse;
    frames.push(encodeEvent('contentBlockStart', { contentBlockIndex: index, start: { toolUse: { toolUseId, name } } }));
    for (const piece of halves(JSON.stringify(input)))
      frames.push(encodeEvent('contentBlockDelta', { contentBlockIndex: index, delta: { toolUse: { input: piece } } }));
    frames.push(encodeEvent('contentBlockStop', { contentBlockIndex: index++ }));
  }
  frames.push(encodeEvent('messageStop', { stopReason: reply.stopReason }));
  frames.push(encodeEvent('metadata', { usage: reply.usage, metrics: { latencyMs: 42 } }));
  return frames;
}

/** The default fake embedding: `n` numbers from the text's hash, unit length. */
export function fakeEmbedding(text: string, n = 8): number[] {
  const v = Array.from({ length: n }, (_, i) => createHash('sha256').update(`${i}:${text}`).digest()[0]! / 255 - 0.5);
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

function invoke(opts: FakeBedrockOptions, modelId: string, body: any, res: ServerResponse): void {
  if (answerBedrockImage(modelId, body, res, sendBedrockError)) return;
  const dims = opts.dimensions ?? 8;
  if (/^amazon\.titan-embed-text-v[12]/.test(modelId)) {
    if (typeof body.inputText !== 'string' || !body.inputText)
      return sendBedrockError(
        res,
        400,
        'ValidationException',
        'Malformed input request: #: required key [inputText] not found, please reformat your input and try again.',
      );
    const v2 = modelId.startsWith('amazon.titan-embed-text-v2');
    if (body.dimensions !== undefined && (!v2 || ![256, 512, 1024].includes(body.dimensions))) {
      return sendBedrockError(
        res,
        400,
        'ValidationException',
        'Malformed input request: #/dimensions: 256, 512 or 1024 expected, please reformat your input and try again.',
      );
    }
    const embedding = fakeEmbedding(body.inputText, body.dimensions ?? dims);
    const count = tokens(body.inputText);
    return sendJson(
      res,
      200,
      { embedding, inputTextTokenCount: count, ...(v2 ? { embeddingsByType: { float: embedding } } : {}) },
      invokeHeaders(count),
    );
  }
  if (/^cohere\.embed-/.test(modelId)) {
    if (!Array.isArray(body.texts) || body.texts.length === 0 || typeof body.input_type !== 'string') {
      return sendBedrockError(
        res,
        400,
        'ValidationException',
        'Malformed input request: #: required key [texts, input_type] not found, please reformat your input and try again.',
      );
    }
    const embeddings = body.texts.map((t: string) => fakeEmbedding(t, dims));
    const count = body.texts.reduce((n: number, t: string) => n + tokens(t), 0);
    return sendJson(
      res,
      200,
      {
        id: 'emb-' + createHash('sha256').update(body.texts.join('\n')).digest('hex').slice(0, 12),
        texts: body.texts,
        embeddings,
        response_type: 'embeddings_floats',
      },
      invokeHeaders(count),
    );
  }
  return sendBedrockError(res, 400, 'ValidationException', 'The provided model identifier is invalid.');
}

function invokeHeaders(inputTokens: number): Record<string, string> {
  return {
    'x-amzn-bedrock-input-token-count': String(inputTokens),
    'x-amzn-bedrock-invocation-latency': '12',
    'x-amzn-requestid': 'fake-invoke',
  };
}
