import type { ServerResponse } from 'node:http';
import { FakeServer, bearer, sendJson, type RecordedRequest } from '../shared/fake-server.js';
import { answerRerank } from '../openai/media.js';

/**
 * A fake of Jina AI's `POST /v1/rerank`: `{model, query, documents, top_n, return_documents}` →
 * `{model, usage: {total_tokens}, results: [{index, document: {text}, relevance_score}]}` (the same
 * format vLLM serves), Bearer auth, `{"detail": …}` errors.
 * @see https://jina.ai/reranker/
 */
export class FakeJina extends FakeServer {
  constructor(readonly apiKey?: string) {
    super((req, res) => handle(this.apiKey, req, res));
  }
  /** Base URL (`custom_host`), including `/v1`. */
  get url(): string {
    return this.origin + '/v1';
  }
}

export async function startFakeJina(apiKey?: string): Promise<FakeJina> {
  return new FakeJina(apiKey).start();
}

function handle(apiKey: string | undefined, req: RecordedRequest, res: ServerResponse): void {
  if (apiKey && bearer(req) !== apiKey) return sendJson(res, 401, { detail: 'Unauthorized: invalid API key' });
  if (req.method !== 'POST' || req.path !== '/v1/rerank') return sendJson(res, 404, { detail: 'Not Found' });
  if (typeof req.body?.model !== 'string')
    return sendJson(res, 422, { detail: [{ loc: ['body', 'model'], msg: 'field required', type: 'value_error.missing' }] });
  answerRerank(req.body, res);
}
