import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { isObject } from '../../foundation/lib/json.js';
import { prefixedId } from '../../foundation/lib/ids.js';
import {
  buildRerankResponse,
  rerankModelFor,
  type RerankRequest as CommonRerankRequest,
  type RerankResponse,
} from '../../foundation/spec/rerank.js';
import type { EndpointAdapter } from '../provider.js';
import { cohereBaseUrl, cohereHeaders } from './cohere-auth.js';

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
 * @see https://docs.cohere.com/reference/rerank
 */
export function toCohereRerankRequest(req: RerankRequest): CohereRerankRequest {
  const body: CohereRerankRequest = {
    model: req.model,
    query: req.query,
    documents: req.documents.map((d) => (typeof d === 'string' ? d : d.text)),
  };
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

/**
 * The rerank endpoint: `POST /v2/rerank` (model prefix `cohere.` stripped), answered as the common
 * result object with document texts and Cohere's billed search units.
 * @see https://docs.cohere.com/reference/rerank
 */
export const cohereRerank: EndpointAdapter<CommonRerankRequest, RerankResponse> = {
  buildRequest(req, ctx) {
    const body = { ...toCohereRerankRequest({ ...req, model: rerankModelFor(req.model, 'cohere') }), ...(req.parameters ?? {}) };
    return {
      url: `${cohereBaseUrl(ctx.target)}/v2/rerank`,
      method: 'POST',
      headers: cohereHeaders(ctx.target),
      body: JSON.stringify(body),
    };
  },
  mapResponse(body, req) {
    const mapped = mapCohereRerankResponse(body);
    return buildRerankResponse(req, mapped.results, {
      id: mapped.id ?? prefixedId('rerank-'),
      model: rerankModelFor(req.model, 'cohere'),
      provider: 'cohere',
      searchUnits: mapped.search_units || 1,
    });
  },
};
