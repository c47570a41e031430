import type { ResponseObject, ResponseStreamEvent, ResponsesRequest } from '../../foundation/spec/responses.js';
import type { EndpointAdapter } from '../provider.js';
import { baseUrlOf, openAIHeaders, type OpenAICompatibleSpec } from './openai-compatible-spec.js';
import { createOpenAIResponsesStreamMapper } from './openai-responses-stream.js';
import { joinUrl } from './url.js';

/**
 * `POST {base}/responses` on a host that serves the Responses API natively (OpenAI, Azure OpenAI, and
 * OpenAI-compatible rows with `responses: true`). The body is forwarded as the client sent it (after
 * `override_params`); answers are the host's response objects; streams are its events, re-framed as
 * `data:` lines by the gateway.
 * @see https://platform.openai.com/docs/api-reference/responses/create
 */
export function createOpenAIResponsesEndpoint(
  spec: OpenAICompatibleSpec,
): EndpointAdapter<ResponsesRequest, ResponseObject, ResponseStreamEvent> {
  return {
    buildRequest(req, ctx) {
      const path = spec.resolvePath ? spec.resolvePath('/responses', req, ctx.target) : '/responses';
      return {
        url: joinUrl(baseUrlOf(spec, ctx.target), path),
        method: 'POST',
        headers: openAIHeaders(spec, ctx.target),
        body: JSON.stringify(req),
      };
    },
    mapResponse: (body) => body as ResponseObject,
    createStreamMapper: () => createOpenAIResponsesStreamMapper(spec.name),
  };
}
