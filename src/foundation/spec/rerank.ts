/**
 * Rerank in the common schema (`POST /v1/rerank`).
 * @see https://docs.cohere.com/reference/rerank (the shape the specification follows)
 */
export interface RerankRequest {
  /** Model id; a `<provider>.` prefix naming the answering provider is stripped before the upstream call. */
  model: string;
  query: string;
  documents: RerankDocument[];
  /** How many results to return (all when absent). */
  top_n?: number;
  /** Include each document's text in the results (default true). */
  return_documents?: boolean;
  /** Maximum tokens per document (providers that truncate). */
  max_tokens_per_doc?: number;
  /** Fields used for ranking when documents are objects. */
  rank_fields?: string[];
  /** Truncate over-long documents instead of failing (providers that offer it). */
  truncation?: boolean;
  /** Scheduling priority hint (providers that offer it). */
  priority?: number;
  /** Additional provider-specific parameters, merged into the upstream body. */
  parameters?: Record<string, unknown>;
  [key: string]: unknown;
}

/** A document: a string or an object with `text` and optional metadata. */
export type RerankDocument = string | { text: string; [key: string]: unknown };

/** One ranked document. */
export interface RerankResult {
  index: number;
  relevance_score: number;
  document?: { text: string };
}

/** The specification's "Rerank result object". */
export interface RerankResponse {
  object: 'list';
  id: string;
  model: string;
  provider: string;
  results: RerankResult[];
  usage: { search_units: number };
}

/** The text of a document. */
export function rerankDocumentText(doc: RerankDocument): string {
  return typeof doc === 'string' ? doc : doc.text;
}

/** The model id for a provider: a leading `<provider>.` is removed (`cohere.rerank-v3.5` → `rerank-v3.5` on cohere). */
export function rerankModelFor(model: string, provider: string): string {
  const prefix = `${provider}.`;
  return model.toLowerCase().startsWith(prefix) ? model.slice(prefix.length) : model;
}

/**
 * Builds the common answer from ranked `(index, score)` pairs: sorted by score descending (ties by
 * index), cut to `top_n`, each with its document text unless `return_documents` is false.
 */
export function buildRerankResponse(
  req: RerankRequest,
  ranked: Array<{ index: number; relevance_score: number }>,
  meta: { id: string; model: string; provider: string; searchUnits?: number },
): RerankResponse {
  const sorted = [...ranked].sort((a, b) => b.relevance_score - a.relevance_score || a.index - b.index);
  const cut = req.top_n !== undefined ? sorted.slice(0, req.top_n) : sorted;
  const withDocs = req.return_documents !== false;
  return {
    object: 'list',
    id: meta.id,
    model: meta.model,
    provider: meta.provider,
    results: cut.map((r) => {
      const doc = req.documents[r.index];
      return {
        index: r.index,
        relevance_score: r.relevance_score,
        ...(withDocs && doc !== undefined ? { document: { text: rerankDocumentText(doc) } } : {}),
      };
    }),
    usage: { search_units: meta.searchUnits ?? 1 },
  };
}
