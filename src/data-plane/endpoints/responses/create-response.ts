import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GatewayDeps } from '../../pipeline/deps.js';
import type { ResponsesRequest } from '../../../foundation/spec/responses.js';
import { getResponse } from '../../../infra/store/repos/responses.js';
import { checkResponsesBody } from './responses-body.js';
import { prepareRequest, servesNatively } from '../../pipeline/route-through-gateway.js';
import { createNativeResponse } from './create-native-response.js';
import { createResponseOverChat } from './create-response-over-chat.js';

/**
 * `POST /v1/responses`. When every target the request can reach serves the Responses API natively
 * (openai, azure-openai, OpenAI-compatible rows with `responses: true`), the body is forwarded through
 * the routing engine as endpoint `responses`; otherwise the gateway runs the Responses API itself over
 * chat completions (endpoint `chat`). Either way, with `store` on, the response is stored for GET.
 */
export async function createResponse(deps: GatewayDeps, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const body = request.body as ResponsesRequest;
  checkResponsesBody(body);
  const prepared = prepareRequest(deps, request, reply);
  const previousId = typeof body.previous_response_id === 'string' ? body.previous_response_id : undefined;
  const previous = previousId ? await getResponse(deps.store, previousId, prepared.dp.ctx.workspaceId) : undefined;
  if (servesNatively(request, prepared, deps.targets, 'responses'))
    return createNativeResponse(deps, request, reply, prepared, body, previous);
  return createResponseOverChat(deps, request, reply, prepared, body, previous);
}
