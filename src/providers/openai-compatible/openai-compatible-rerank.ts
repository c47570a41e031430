import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { isObject } from '../../foundation/lib/json.js';
import {
  buildRerankResponse,
  rerankDocumentText,
  rerankModelFor,
  type RerankRequest,
  type RerankResponse,
} from '../../foundation/spec/rerank.js';

/**
 * The body of a `/rerank` call in the vLLM / Jina format: `{model, query, documents, top_n,
 * return_documents}` with string documents (`{text}` objects flattened), plus `parameters` merged in.
 * @see https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html#re-rank-api
 * @see https://jina.ai/reranker/ (POST /v1/rerank)
 */
export function buildOpenAICompatibleRerankBody(req: RerankRequest, provider: string): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: rerankModelFor(req.model, provider),
    query: req.query,
    documents: req.documents.map(rerankDocumentText),
  };
  if (req.top_n !== undefined) body.top_n = req.top_n;
  if (req.return_documents !== undefined) body.return_documents = req.return_documents;
  if (req.truncation !== undefined) body.truncation = req.truncation;
  if (req.priority !== undefined) body.priority = req.priority;
  return { ...body, ...(req.parameters ?? {}) };
}

/**
 * Maps a vLLM / Jina / Together rerank answer (`{id?, model, usage, results: [{index, relevance_score,
 * document?}]}`) to the common result object, sorted by score.
 * @see https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html#re-rank-api
 */
export function mapOpenAICompatibleRerankResponse(body: unknown, req: RerankRequest, provider: string, fallbackId: string): RerankResponse {
  if (!isObject(body) || !Array.isArray(body.results)) {
    throw new GatewayError('provider_error', `${provider} answered a rerank without results.`, { provider, status: 502 });
  }
  const ranked = body.results
    .filter(isObject)
    .map((r) => ({ index: Number(r.index), relevance_score: Number(r.relevance_score ?? r.score) }));
  return buildRerankResponse(req, ranked, {
    id: typeof body.id === 'string' ? body.id : fallbackId,
    model: typeof body.model === 'string' ? body.model : rerankModelFor(req.model, provider),
    provider,
  });
}
