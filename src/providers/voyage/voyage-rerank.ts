import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { isObject } from '../../foundation/lib/json.js';
import { prefixedId } from '../../foundation/lib/ids.js';
import {
  buildRerankResponse,
  rerankDocumentText,
  rerankModelFor,
  type RerankRequest,
  type RerankResponse,
} from '../../foundation/spec/rerank.js';

/**
 * The body of Voyage's `POST /v1/rerank`: `top_n` becomes `top_k`; `truncation` and
 * `return_documents` pass through; `{text}` documents are flattened to strings.
 * @see https://docs.voyageai.com/reference/reranker-api
 */
export function buildVoyageRerankBody(req: RerankRequest): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: rerankModelFor(req.model, 'voyage'),
    query: req.query,
    documents: req.documents.map(rerankDocumentText),
  };
  if (req.top_n !== undefined) body.top_k = req.top_n;
  if (req.truncation !== undefined) body.truncation = req.truncation;
  if (req.return_documents !== undefined) body.return_documents = req.return_documents;
  return { ...body, ...(req.parameters ?? {}) };
}

/**
 * Maps Voyage's answer (`{object: 'list', data: [{index, relevance_score, document?}], model, usage:
 * {total_tokens}}`) to the common result object.
 * @see https://docs.voyageai.com/reference/reranker-api
 */
export function mapVoyageRerankResponse(body: unknown, req: RerankRequest): RerankResponse {
  if (!isObject(body) || !Array.isArray(body.data)) {
    throw new GatewayError('provider_error', 'Voyage answered a rerank without data.', { provider: 'voyage', status: 502 });
  }
  const ranked = body.data.filter(isObject).map((r) => ({ index: Number(r.index), relevance_score: Number(r.relevance_score) }));
  return buildRerankResponse(req, ranked, {
    id: prefixedId('rerank-'),
    model: typeof body.model === 'string' ? body.model : rerankModelFor(req.model, 'voyage'),
    provider: 'voyage',
  });
}
