import type { ServerResponse } from 'node:http';
import { FakeServer, sendJson, type FakeFault, type RecordedRequest } from '../shared/fake-server.js';
import { answerChat, answerEmbeddings } from '../azure-openai/openai-shaped.js';

/**
 * A fake of an Azure AI Model Inference endpoint (serverless API, managed compute or a Foundry resource with
 * `prefix: '/models'`): `POST /chat/completions` (JSON and SSE), `POST /embeddings`, `GET /info`, all with a
 * required `?api-version=`; `api-key` or `Authorization: Bearer` auth; `{"error": {code, message}}` bodies; and the
 * `extra-parameters` rule (unknown body fields are refused with 422 unless the header is `drop` or `pass-through`).
 * @see https://learn.microsoft.com/azure/ai-foundry/model-inference/reference/reference-model-inference-api
 */
export interface FakeAzureAIOptions {
  /** When set, requests must carry `api-key: <apiKey>` or `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** Model served (reported in answers and `/info`). Default `Meta-Llama-3.1-8B-Instruct`. */
  model?: string;
  /** Path prefix before the routes (`/models` on a Foundry resource). Default none. */
  prefix?: string;
  frameDelayMs?: number;
}

export class FakeAzureAI extends FakeServer {
  constructor(readonly options: FakeAzureAIOptions = {}) {
    super((req, res, fault) => handle(this.options, req, res, fault));
  }
  /** Base URL of the endpoint (what `custom_host` and the SDK's baseURL point at). */
  get url(): string {
    return this.origin + (this.options.prefix ?? '');
  }
}

export async function startFakeAzureAI(options: FakeAzureAIOptions = {}): Promise<FakeAzureAI> {
  return new FakeAzureAI(options).start();
}

function azureError(res: ServerResponse, status: number, code: string, message: string, extra: Record<string, unknown> = {}): void {
  sendJson(res, status, { error: { code, message, ...extra } }, { 'x-ms-error-code': code });
}

const CHAT_FIELDS = new Set([
  'messages',
  'model',
  'frequency_penalty',
  'presence_penalty',
  'temperature',
  'top_p',
  'max_tokens',
  'response_format',
  'stop',
  'stream',
  'stream_options',
  'tools',
  'tool_choice',
  'seed',
  'modalities',
]);
const EMBED_FIELDS = new Set(['input', 'model', 'dimensions', 'encoding_format', 'input_type']);

function authorised(opts: FakeAzureAIOptions, req: RecordedRequest): boolean {
  if (!opts.apiKey) return true;
  return req.headers['api-key'] === opts.apiKey || req.headers.authorization === `Bearer ${opts.apiKey}`;
}

/** Applies `extra-parameters`: returns the body to use, or undefined after answering 422. */
function applyExtraParameters(req: RecordedRequest, res: ServerResponse, known: Set<string>): Record<string, unknown> | undefined {
  const mode = String(req.headers['extra-parameters'] ?? 'error');
  const unknown = Object.keys(req.body).filter((k) => !known.has(k));
  if (unknown.length === 0 || mode === 'pass-through') return req.body;
  if (mode === 'drop') return Object.fromEntries(Object.entries(req.body).filter(([k]) => known.has(k)));
  azureError(res, 422, 'Invalid input', 'invalid input error', {
    status: 422,
    details: unknown.map((k) => ({ type: 'extra_forbidden', loc: ['body', k], msg: 'Extra inputs are not permitted' })),
  });
  return undefined;
}

async function handle(opts: FakeAzureAIOptions, req: RecordedRequest, res: ServerResponse, fault: FakeFault | undefined): Promise<void> {
  if (!authorised(opts, req))
    return azureError(res, 401, 'Unauthorized', 'Access denied due to invalid subscription key or wrong API endpoint.');
  const prefix = opts.prefix ?? '';
  const path = req.path.startsWith(prefix) ? req.path.slice(prefix.length) : req.path;
  if (!req.query.get('api-version'))
    return azureError(
      res,
      400,
      'MissingApiVersionParameter',
      'The api-version query parameter (?api-version=) is required for all requests.',
    );
  const model = opts.model ?? 'Meta-Llama-3.1-8B-Instruct';
  if (req.method === 'GET' && path === '/info')
    return sendJson(res, 200, { model_name: model, model_type: 'chat-completion', model_provider_name: 'Meta' });
  if (req.method !== 'POST' || (path !== '/chat/completions' && path !== '/embeddings'))
    return azureError(res, 404, 'NotFound', 'Resource not found');
  if (req.body === undefined) return azureError(res, 400, 'BadRequest', 'The request body is not valid JSON.');
  const shaped = { model, frameDelayMs: opts.frameDelayMs };
  if (path === '/chat/completions') {
    const body = applyExtraParameters(req, res, CHAT_FIELDS);
    if (!body) return;
    if (!(await answerChat(res, body, fault, shaped))) azureError(res, 422, 'Invalid input', "Field 'messages' is required.");
    return;
  }
  const body = applyExtraParameters(req, res, EMBED_FIELDS);
  if (!body) return;
  if (!answerEmbeddings(res, body, { ...shaped, model: opts.model ?? 'Cohere-embed-v3-english' }))
    azureError(res, 422, 'Invalid input', "Field 'input' is required.");
}
