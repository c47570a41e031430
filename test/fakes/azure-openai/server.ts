import type { ServerResponse } from 'node:http';
import { FakeServer, sendJson, type FakeFault, type RecordedRequest } from '../shared/fake-server.js';
import { answerChat, answerCompletions, answerEmbeddings } from './openai-shaped.js';
import { answerImages } from '../openai/media.js';

/**
 * A fake of the Azure OpenAI data plane, speaking its wire format:
 * `POST /openai/deployments/{deployment}/{chat/completions|completions|embeddings|images/generations}?api-version=…`,
 * `GET /openai/models?api-version=…`, `api-key` header (or `Authorization: Bearer <Entra token>`), Azure's
 * error bodies (`{"error": {"code": "401", "message": …}}`) and content-filter annotations.
 * It also serves an Entra ID token endpoint (`POST /{tenant}/oauth2/v2.0/token`) so the client-credentials
 * flow can be tested with `cloud3_entra_authority_host` pointing here.
 * @see https://learn.microsoft.com/azure/ai-services/openai/reference
 */
export interface FakeAzureOpenAIOptions {
  /** When set, requests must carry `api-key: <apiKey>` (or an accepted bearer token). */
  apiKey?: string;
  /** Entra ID access tokens accepted as `Authorization: Bearer <token>`. */
  bearerTokens?: string[];
  /** Deployment name → model it serves. When set, other deployments answer 404 DeploymentNotFound. */
  deployments?: Record<string, string>;
  /** Client credentials the token endpoint accepts; it issues `token`. */
  entra?: { clientId: string; clientSecret: string; token: string; expiresIn?: number };
  /** Omit Azure's content-filter annotations (default: included, as Azure sends them). */
  noContentFilter?: boolean;
  frameDelayMs?: number;
}

export class FakeAzureOpenAI extends FakeServer {
  constructor(readonly options: FakeAzureOpenAIOptions = {}) {
    super((req, res, fault) => handle(this.options, req, res, fault));
  }
  /** The resource base a gateway `custom_host` replaces: `http://127.0.0.1:<port>/openai`. */
  get url(): string {
    return this.origin + '/openai';
  }
  /** What the AzureOpenAI SDK calls `endpoint` (it appends `/openai`). */
  get endpoint(): string {
    return this.origin;
  }
}

export async function startFakeAzureOpenAI(options: FakeAzureOpenAIOptions = {}): Promise<FakeAzureOpenAI> {
  return new FakeAzureOpenAI(options).start();
}

/** Azure's error body: `{"error": {"code", "message"}}` (content-filter errors add `param`, `status`, `innererror`). */
export function azureError(res: ServerResponse, status: number, code: string, message: string, headers: Record<string, string> = {}): void {
  sendJson(res, status, { error: { code, message } }, headers);
}

function authorised(opts: FakeAzureOpenAIOptions, req: RecordedRequest): boolean {
  if (!opts.apiKey && !opts.bearerTokens) return true;
  if (opts.apiKey && req.headers['api-key'] === opts.apiKey) return true;
  const auth = req.headers.authorization;
  return typeof auth === 'string' && auth.startsWith('Bearer ') && (opts.bearerTokens ?? []).includes(auth.slice(7));
}

function tokenEndpoint(opts: FakeAzureOpenAIOptions, req: RecordedRequest, res: ServerResponse): void {
  const form = new URLSearchParams(req.rawBody.toString('utf8'));
  const e = opts.entra;
  if (
    !e ||
    form.get('grant_type') !== 'client_credentials' ||
    form.get('client_id') !== e.clientId ||
    form.get('client_secret') !== e.clientSecret
  ) {
    sendJson(res, 401, {
      error: 'invalid_client',
      error_description: 'AADSTS7000215: Invalid client secret provided.',
      error_codes: [7000215],
    });
    return;
  }
  sendJson(res, 200, { token_type: 'Bearer', expires_in: e.expiresIn ?? 3599, ext_expires_in: e.expiresIn ?? 3599, access_token: e.token });
}

const DEPLOYMENT_PATH = /^\/openai\/deployments\/([^/]+)(\/chat\/completions|\/completions|\/embeddings|\/images\/generations)$/;

async function handle(
  opts: FakeAzureOpenAIOptions,
  req: RecordedRequest,
  res: ServerResponse,
  fault: FakeFault | undefined,
): Promise<void> {
  if (req.method === 'POST' && /^\/[^/]+\/oauth2\/v2\.0\/token$/.test(req.path)) return tokenEndpoint(opts, req, res);
  if (!authorised(opts, req)) {
    return azureError(
      res,
      401,
      '401',
      'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.',
    );
  }
  if (!req.query.get('api-version')) return azureError(res, 404, '404', 'Resource not found');
  if (req.method === 'GET' && req.path === '/openai/models') {
    const models = Object.values(opts.deployments ?? { 'gpt-4o': 'gpt-4o' });
    return sendJson(res, 200, {
      object: 'list',
      data: [...new Set(models)].map((id) => ({
        id,
        object: 'model',
        created_at: 1715558400,
        status: 'succeeded',
        capabilities: { chat_completion: true },
      })),
    });
  }
  const m = DEPLOYMENT_PATH.exec(req.path);
  if (req.method !== 'POST' || !m) return azureError(res, 404, '404', 'Resource not found');
  const deployment = decodeURIComponent(m[1]!);
  const model = opts.deployments ? opts.deployments[deployment] : deployment;
  if (!model) {
    return azureError(
      res,
      404,
      'DeploymentNotFound',
      'The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again.',
    );
  }
  if (req.body === undefined) return azureError(res, 400, 'BadRequest', 'Failed to parse the request body as JSON.');
  const shaped = { model, contentFilter: !opts.noContentFilter, frameDelayMs: opts.frameDelayMs };
  const op = m[2];
  if (op === '/images/generations') return answerImages({ ...req.body, model }, res);
  const ok =
    op === '/chat/completions'
      ? await answerChat(res, req.body, fault, shaped)
      : op === '/completions'
        ? await answerCompletions(res, req.body, fault, shaped)
        : answerEmbeddings(res, req.body, shaped);
  if (!ok)
    sendJson(res, 400, {
      error: { message: 'Missing required parameter.', type: 'invalid_request_error', param: null, code: 'missing_required_parameter' },
    });
}
