import { GatewayError } from '../../errors/gateway-error.js';
import { isObject } from '../../lib/json.js';

/** A rerank request in the gateway's shape (the same fields as Cohere's). */
export interface RerankRequest {
  model: string;
  query: string;
  documents: Array<string | { text: string }>;
  top_n?: number;
  max_tokens_per_doc?: number;
}

/** One ranked document. */
export interface RerankResult {
  index: number;
  relevance_score: number;
}

/** Body of `POST /v2/rerank`. */
export interface CohereRerankRequest {
  model: string;
  query: string;
  documents: string[];
  top_n?: number;
  max_tokens_per_doc?: number;
}

/**
 * Builds the body of `POST /v2/rerank`; `{text}` documents are flattened to strings (v2 takes strings).
 * Not wired to an endpoint yet: the rerank endpoint of the provider interface will use it.
 * @see https://docs.cohere.com/reference/rerank
 */
export function toCohereRerankRequest(req: RerankRequest): CohereRerankRequest {
  const body: CohereRerankRequest = { model: req.model, query: req.query, documents: req.documents.map((d) => (typeof d === 'string' ? d : d.text)) };
  if (req.top_n !== undefined) body.top_n = req.top_n;
  if (req.max_tokens_per_doc !== undefined) body.max_tokens_per_doc = req.max_tokens_per_doc;
  return body;
}

/**
 * Maps a `/v2/rerank` answer to its results, best first, and the billed search units.
 * @see https://docs.cohere.com/reference/rerank#response
 */
export function mapCohereRerankResponse(body: unknown): { id?: string; results: RerankResult[]; search_units: number } {
  if (!isObject(body) || !Array.isArray(body.results)) {
    throw new GatewayError('provider_error', 'Cohere answered a rerank without results.', { provider: 'cohere', status: 502 });
  }
  const results = body.results.filter(isObject).map((r) => ({ index: Number(r.index), relevance_score: Number(r.relevance_score) }));
  const units = isObject(body.meta) && isObject(body.meta.billed_units) ? body.meta.billed_units.search_units : undefined;
  return { ...(typeof body.id === 'string' ? { id: body.id } : {}), results, search_units: typeof units === 'number' ? units : 0 };
}
