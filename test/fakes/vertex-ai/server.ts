import type { ServerResponse } from 'node:http';
import { FakeServer, bearer, sendJson, type FakeFault, type RecordedRequest } from '../shared/fake-server.js';
import { answerGenerateContent, sendGoogleError, type GeminiReplyOptions } from '../google/gemini-reply.js';
import { answerImagen } from '../google/imagen-reply.js';
import { hashEmbedding } from '../openai/server.js';
import { answerAnthropic } from './anthropic-reply.js';
import { FakeTokenEndpoint, GOOGLE_TOKEN_URL, type FakeServiceAccount } from './token-endpoint.js';

/**
 * A fake of Vertex AI: a service-account token endpoint (`POST /token`, verifying the signed JWT),
 * Gemini models at `/{v1|v1beta1}/projects/{p}/locations/{r}/publishers/google/models/{m}:generateContent`,
 * `:streamGenerateContent`, `:predict` (embeddings, and Imagen for `imagen-*` models), and Claude models at
 * `…/publishers/anthropic/models/{m}:rawPredict` / `:streamRawPredict`. Every model call needs a
 * Bearer token this fake issued (401 `UNAUTHENTICATED` otherwise).
 * @see https://cloud.google.com/vertex-ai/generative-ai/docs/reference/rest
 */
export interface FakeVertexOptions extends GeminiReplyOptions {
  /** Service accounts whose assertions the token endpoint accepts. */
  serviceAccounts?: FakeServiceAccount[];
  /** Lifetime of issued tokens in seconds (default 3600). */
  tokenLifetimeS?: number;
  /** When set, only this project is served (403 `PERMISSION_DENIED` otherwise). */
  project?: string;
  /** Time source of the token endpoint (assertion and token expiry), default Date.now. */
  now?: () => number;
}

export class FakeVertex extends FakeServer {
  readonly tokens: FakeTokenEndpoint;
  constructor(readonly options: FakeVertexOptions = {}) {
    super((req, res, fault) => handle(this, req, res, fault));
    this.tokens = new FakeTokenEndpoint(options.serviceAccounts ?? [], options.tokenLifetimeS, options.now);
  }
  /** The `token_uri` to put in a service-account key. */
  get tokenUri(): string {
    return `${this.origin}/token`;
  }
  /** How many token exchanges the fake has received. */
  get tokenRequests(): number {
    return this.requests.filter((r) => r.path === '/token').length;
  }
}

export async function startFakeVertex(options: FakeVertexOptions = {}): Promise<FakeVertex> {
  return new FakeVertex(options).start();
}

const MODEL_PATH = /^\/(v1|v1beta1)\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/(google|anthropic)\/models\/([^/:]+):([A-Za-z]+)$/;

async function handle(fake: FakeVertex, req: RecordedRequest, res: ServerResponse, fault: FakeFault | undefined): Promise<void> {
  const opts = fake.options;
  if (req.path === '/token' && req.method === 'POST') return fake.tokens.handle(req, res, [fake.tokenUri, GOOGLE_TOKEN_URL]);
  if (!fake.tokens.accepts(bearer(req))) {
    return sendGoogleError(
      res,
      401,
      'UNAUTHENTICATED',
      'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.',
    );
  }
  const m = MODEL_PATH.exec(req.path);
  if (!m || req.method !== 'POST')
    return sendGoogleError(res, 404, 'NOT_FOUND', `The requested URL ${req.path} was not found on this server.`);
  const [, , project, location, publisher, model, method] = m as unknown as string[];
  if (opts.project && project !== opts.project) {
    return sendGoogleError(
      res,
      403,
      'PERMISSION_DENIED',
      `Permission 'aiplatform.endpoints.predict' denied on resource '//aiplatform.googleapis.com/projects/${project}/locations/${location}/publishers/${publisher}/models/${model}' (or it may not exist).`,
    );
  }
  if (publisher === 'anthropic') {
    if (method === 'rawPredict' || method === 'streamRawPredict')
      return answerAnthropic(req, res, fault, model!, method === 'streamRawPredict', opts.frameDelayMs);
  } else {
    if (method === 'generateContent' || method === 'streamGenerateContent')
      return answerGenerateContent(req, res, fault, model!, method === 'streamGenerateContent', opts);
    if (method === 'predict' && model!.startsWith('imagen-')) return answerImagen(req, res);
    if (method === 'predict') return predictEmbeddings(req, res, opts);
  }
  return sendGoogleError(
    res,
    404,
    'NOT_FOUND',
    `Publisher Model \`projects/${project}/locations/${location}/publishers/${publisher}/models/${model}\` does not support ${method}.`,
  );
}

function predictEmbeddings(req: RecordedRequest, res: ServerResponse, opts: FakeVertexOptions): void {
  const instances = req.body?.instances;
  if (!Array.isArray(instances) || instances.some((i: any) => typeof i?.content !== 'string')) {
    return sendGoogleError(res, 400, 'INVALID_ARGUMENT', 'Invalid JSON payload: each instance needs a string "content".');
  }
  const dims = req.body.parameters?.outputDimensionality;
  const predictions = instances.map((i: any) => {
    const v = (opts.embed ?? hashEmbedding)(i.content);
    return {
      embeddings: {
        values: typeof dims === 'number' ? v.slice(0, dims) : v,
        statistics: { token_count: Math.max(1, Math.ceil(i.content.length / 4)), truncated: false },
      },
    };
  });
  sendJson(res, 200, {
    predictions,
    metadata: { billableCharacterCount: instances.reduce((n: number, i: any) => n + i.content.length, 0) },
  });
}
