import type { RerankRequest, RerankResponse } from '../../foundation/spec/rerank.js';
import { buildRerankResponse, rerankDocumentText, rerankModelFor } from '../../foundation/spec/rerank.js';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { isObject } from '../../foundation/lib/json.js';
import { prefixedId } from '../../foundation/lib/ids.js';
import type { CallContext, EndpointAdapter, UpstreamCall } from '../provider.js';
import { joinUrl } from '../openai-compatible/url.js';
import { checkUrlField } from '../url-fields.js';
import { readBedrockAuth, signBedrockRequest } from './bedrock-auth.js';
import { requireModel } from './bedrock-chat.js';

/** The model ARN Rerank needs: an ARN as given, else the region's foundation model. */
export function rerankModelArn(model: string, region: string): string {
  return model.startsWith('arn:') ? model : `arn:aws:bedrock:${region}::foundation-model/${model}`;
}

/**
 * The body of Bedrock Agent Runtime `POST /rerank`: one text query, inline text sources,
 * `numberOfResults` from `top_n` (all documents when absent), `parameters` as
 * `additionalModelRequestFields`.
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_agent-runtime_Rerank.html
 */
export function buildBedrockRerankBody(req: RerankRequest, region: string): Record<string, unknown> {
  const model = rerankModelFor(requireModel(req.model), 'bedrock');
  return {
    queries: [{ type: 'TEXT', textQuery: { text: req.query } }],
    sources: req.documents.map((d) => ({
      type: 'INLINE',
      inlineDocumentSource: { type: 'TEXT', textDocument: { text: rerankDocumentText(d) } },
    })),
    rerankingConfiguration: {
      type: 'BEDROCK_RERANKING_MODEL',
      bedrockRerankingConfiguration: {
        numberOfResults: req.top_n ?? req.documents.length,
        modelConfiguration: {
          modelArn: rerankModelArn(model, region),
          ...(req.parameters ? { additionalModelRequestFields: req.parameters } : {}),
        },
      },
    },
  };
}

/**
 * Maps `{results: [{index, relevanceScore}]}` to the common result object.
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_agent-runtime_Rerank.html#API_agent-runtime_Rerank_ResponseSyntax
 */
export function mapBedrockRerankResponse(body: unknown, req: RerankRequest): RerankResponse {
  if (!isObject(body) || !Array.isArray(body.results)) {
    throw new GatewayError('provider_error', 'Bedrock answered a rerank without results.', { provider: 'bedrock', status: 502 });
  }
  const ranked = body.results.filter(isObject).map((r) => ({ index: Number(r.index), relevance_score: Number(r.relevanceScore) }));
  return buildRerankResponse(req, ranked, { id: prefixedId('rerank-'), model: rerankModelFor(req.model, 'bedrock'), provider: 'bedrock' });
}

async function buildRequest(req: RerankRequest, ctx: CallContext): Promise<UpstreamCall> {
  const auth = readBedrockAuth(ctx.target);
  const base = ctx.target.customHost ?? `https://bedrock-agent-runtime.${checkUrlField('cloud1_region', auth.region)}.amazonaws.com`;
  const url = joinUrl(base, '/rerank');
  const body = JSON.stringify(buildBedrockRerankBody(req, auth.region));
  const headers = await signBedrockRequest(auth, url, body, 'application/json', ctx.target.forwardHeaders, new Date(ctx.clock.now()));
  return { url, method: 'POST', headers, body };
}

/** The Bedrock rerank endpoint (Agent Runtime Rerank, SigV4 signing name `bedrock`). */
export const bedrockRerank: EndpointAdapter<RerankRequest, RerankResponse> = {
  buildRequest,
  mapResponse: (body, req) => mapBedrockRerankResponse(body, req),
};
