import type { ServerResponse } from 'node:http';
import { FakeServer, sendJson, type FakeFault, type RecordedRequest } from '../shared/fake-server.js';
import { answerEmbeddings, answerGenerateContent, sendGoogleError, type GeminiReplyOptions } from './gemini-reply.js';
import { answerImagen } from './imagen-reply.js';

/**
 * A fake of the Gemini API (generativelanguage.googleapis.com): `/{v1beta|v1}/models/{model}:generateContent`,
 * `:streamGenerateContent` (`?alt=sse` frames, or a JSON array without it), `:embedContent`,
 * `:batchEmbedContents`, `:predict` (Imagen), `GET /{version}/models`; the key travels as `x-goog-api-key` or `?key=`;
 * errors are Google `{"error": {code, message, status}}` bodies.
 * @see https://ai.google.dev/api
 */
export interface FakeGoogleOptions extends GeminiReplyOptions {
  /** When set, requests must carry this key. */
  apiKey?: string;
  /** Model ids listed by `GET /v1beta/models`. */
  models?: string[];
}

export class FakeGoogle extends FakeServer {
  constructor(readonly options: FakeGoogleOptions = {}) {
    super((req, res, fault) => handle(this.options, req, res, fault));
  }
  /** Base URL to give a client (the origin; the API version is part of each path). */
  get url(): string {
    return this.origin;
  }
}

export async function startFakeGoogle(options: FakeGoogleOptions = {}): Promise<FakeGoogle> {
  return new FakeGoogle(options).start();
}

const PATH = /^\/(v1beta|v1|v1alpha)\/models\/([^/:]+):([A-Za-z]+)$/;

async function handle(opts: FakeGoogleOptions, req: RecordedRequest, res: ServerResponse, fault: FakeFault | undefined): Promise<void> {
  if (opts.apiKey) {
    const header = req.headers['x-goog-api-key'];
    const key = typeof header === 'string' ? header : req.query.get('key');
    if (!key) {
      return sendGoogleError(
        res,
        403,
        'PERMISSION_DENIED',
        "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
      );
    }
    if (key !== opts.apiKey) {
      return sendGoogleError(res, 400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.', [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'API_KEY_INVALID',
          domain: 'googleapis.com',
          metadata: { service: 'generativelanguage.googleapis.com' },
        },
      ]);
    }
  }
  if (req.method === 'GET' && /^\/(v1beta|v1)\/models$/.test(req.path)) {
    const ids = opts.models ?? ['gemini-2.5-flash', 'gemini-2.5-pro', 'gemini-embedding-001'];
    return sendJson(res, 200, {
      models: ids.map((id) => ({ name: `models/${id}`, displayName: id, supportedGenerationMethods: ['generateContent'] })),
    });
  }
  const m = PATH.exec(req.path);
  if (!m || req.method !== 'POST') return sendGoogleError(res, 404, 'NOT_FOUND', `Requested entity was not found: ${req.path}`);
  const [, , model, method] = m as unknown as [string, string, string, string];
  if (method === 'generateContent') return answerGenerateContent(req, res, fault, model, false, opts);
  if (method === 'streamGenerateContent') return answerGenerateContent(req, res, fault, model, true, opts);
  if (method === 'embedContent' || method === 'batchEmbedContents') return answerEmbeddings(req, res, method, model, opts);
  if (method === 'predict' && model.startsWith('imagen-')) return answerImagen(req, res);
  return sendGoogleError(res, 404, 'NOT_FOUND', `Method ${method} is not found for models/${model}.`);
}
