/**
 * The kinds of request the data plane serves. Rate-limit conditions (`endpoint_type`),
 * guardrails (`allowedRequestTypes`) and logs use these names.
 */
export type EndpointKind =
  'chat' | 'completions' | 'embeddings' | 'images' | 'moderations' | 'rerank' | 'responses' | 'files' | 'batches' | 'fine_tuning';
