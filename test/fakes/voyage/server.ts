import type { ServerResponse } from 'node:http';
import { FakeServer, bearer, sendJson, type RecordedRequest } from '../shared/fake-server.js';
import { fakeRelevance } from '../shared/fake-media.js';

/**
 * A fake of Voyage AI's `POST /v1/rerank`: `{query, documents, model, top_k, return_documents,
 * truncation}` → `{object: 'list', data: [{relevance_score, index, document?}], model, usage:
 * {total_tokens}}`, Bearer auth, `{"detail": …}` errors.
 * @see https://docs.voyageai.com/reference/reranker-api
 */
export interface FakeVoyageOptions {
  apiKey?: string;
}

export class FakeVoyage extends FakeServer {
  constructor(readonly options: FakeVoyageOptions = {}) {
    super((req, res) => handle(this.options, req, res));
  }
  /** Base URL (`custom_host`), including `/v1`. */
  get url(): string {
    return this.origin + '/v1';
  }
}

export async function startFakeVoyage(options: FakeVoyageOptions = {}): Promise<FakeVoyage> {
  return new FakeVoyage(options).start();
}

function detail(res: ServerResponse, status: number, message: string): void {
  sendJson(res, status, { detail: message });
}

function handle(opts: FakeVoyageOptions, req: RecordedRequest, res: ServerResponse): void {
  if (opts.apiKey && bearer(req) !== opts.apiKey) return detail(res, 401, 'Provided API key is invalid.');
  if (req.method !== 'POST' || req.path !== '/v1/rerank') return detail(res, 404, 'Not Found');
  const b = req.body;
  if (typeof b?.query !== 'string' || !Array.isArray(b.documents) || typeof b.model !== 'string')
    return detail(res, 400, 'Request body is missing query, documents or model.');
  if (b.documents.some((d: unknown) => typeof d !== 'string')) return detail(res, 400, 'documents must be a list of strings.');
  if ('top_n' in b) return detail(res, 400, "Unexpected field 'top_n'.");
  if (b.top_k !== undefined && (!Number.isInteger(b.top_k) || b.top_k < 1)) return detail(res, 400, 'top_k must be a positive integer.');
  const scores = fakeRelevance(b.query, b.documents);
  const data = b.documents
    .map((text: string, index: number) => ({ relevance_score: scores[index]!, index, ...(b.return_documents ? { document: text } : {}) }))
    .sort((x: { relevance_score: number }, y: { relevance_score: number }) => y.relevance_score - x.relevance_score)
    .slice(0, b.top_k ?? b.documents.length);
  sendJson(res, 200, { object: 'list', data, model: b.model, usage: { total_tokens: 26 } });
}
