import { Type } from 'typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import type { GatewayDeps } from '../../pipeline/deps.js';
import type { ResponseObject } from '../../../foundation/spec/responses.js';
import { deleteResponse, getResponse } from '../../../infra/store/repos/responses.js';
import { createResponse } from './create-response.js';
import { outputTextOf } from './response-object.js';
import { checkIncludes, ResponsesBody } from './responses-body.js';

const IdParams = Type.Object({ response_id: Type.String({ minLength: 1, maxLength: 128 }) });
const TAGS = ['responses'];

/** `include` from the query: `include=a&include=b`, `include[]=a` (the openai SDK's form) or `include=a,b`. */
function includesOf(request: FastifyRequest): string[] {
  const q = request.query as Record<string, unknown>;
  const raw = [q.include, q['include[]']].flat().filter((v): v is string => typeof v === 'string');
  return raw
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
}

/** The stored response object as GET returns it (`output_text` filled in for native objects, which lack it). */
function present(r: ResponseObject): ResponseObject {
  return typeof r.output_text === 'string' ? r : { ...r, output_text: outputTextOf(r.output ?? []) };
}

async function stored(deps: GatewayDeps, request: FastifyRequest) {
  const { response_id } = request.params as { response_id: string };
  const row = await getResponse(deps.store, response_id, request.gw.workspaceId);
  if (!row) throw new GatewayError('not_found', `No response with id '${response_id}'.`, { param: 'response_id' });
  return row;
}

/**
 * The Responses API routes: create, retrieve (with `include`), delete and list input items (cursor
 * paging with `after`, `limit` 1–100 default 20, `order` `asc`|`desc` default `desc`). Retrieve, delete
 * and input items serve the gateway's store, scoped to the caller's workspace.
 * @see https://platform.openai.com/docs/api-reference/responses
 */
export function registerResponsesRoutes(app: FastifyInstance, deps: GatewayDeps): void {
  app.post(
    '/v1/responses',
    {
      config: { permission: 'completions.write', forwardsBody: true, dataPlane: 'responses' },
      schema: { body: ResponsesBody, tags: TAGS, summary: 'Create a model response (Responses API) through the routing config' },
    },
    (request, reply) => createResponse(deps, request, reply),
  );

  app.get(
    '/v1/responses/:response_id',
    { config: { permission: 'completions.write' }, schema: { params: IdParams, tags: TAGS, summary: 'Retrieve a stored response' } },
    async (request) => {
      checkIncludes(includesOf(request), 'include');
      return present((await stored(deps, request)).response);
    },
  );

  app.delete(
    '/v1/responses/:response_id',
    { config: { permission: 'completions.write' }, schema: { params: IdParams, tags: TAGS, summary: 'Delete a stored response' } },
    async (request) => {
      const { response_id } = request.params as { response_id: string };
      if (!(await deleteResponse(deps.store, response_id, request.gw.workspaceId)))
        throw new GatewayError('not_found', `No response with id '${response_id}'.`, { param: 'response_id' });
      return { id: response_id, object: 'response', deleted: true };
    },
  );

  app.get(
    '/v1/responses/:response_id/input_items',
    {
      config: { permission: 'completions.write' },
      schema: { params: IdParams, tags: TAGS, summary: "List a stored response's input items" },
    },
    async (request) => {
      const q = request.query as Record<string, unknown>;
      checkIncludes(includesOf(request), 'include');
      const limit = q.limit === undefined ? 20 : Number(q.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 100)
        throw new GatewayError('invalid_request', 'limit must be an integer from 1 to 100.', { param: 'limit' });
      const order = q.order ?? 'desc';
      if (order !== 'asc' && order !== 'desc')
        throw new GatewayError('invalid_request', "order must be 'asc' or 'desc'.", { param: 'order' });
      const items = [...(await stored(deps, request)).input_items];
      if (order === 'desc') items.reverse();
      let start = 0;
      if (typeof q.after === 'string' && q.after) {
        const at = items.findIndex((i) => i.id === q.after);
        if (at < 0) throw new GatewayError('invalid_request', `after: no input item '${q.after}' in this response.`, { param: 'after' });
        start = at + 1;
      }
      const data = items.slice(start, start + limit);
      return {
        object: 'list',
        data,
        first_id: data[0]?.id ?? null,
        last_id: data[data.length - 1]?.id ?? null,
        has_more: start + limit < items.length,
      };
    },
  );
}
