import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import type { GatewayDeps } from '../../../data-plane/pipeline/deps.js';
import { ScimError, notFound } from './scim-error.js';
import { scimCall, type ScimCall } from './scim-call.js';
import { createUser, deleteUserResource, listUsers, patchUser, readUserResource, replaceUser } from './scim-users.js';
import { createGroup, deleteGroupResource, listGroups, patchGroup, readGroupResource, replaceGroup } from './scim-groups.js';
import { resourceTypes, schemaResources, serviceProviderConfig } from './scim-discovery.js';
import { listResponse } from './scim-query.js';
import { MAX_BODY_JSON_DEPTH, nestsDeeperThan } from '../../../foundation/lib/json-depth.js';

const SCIM_JSON = 'application/scim+json';
/** Where the SCIM API lives. */
export const SCIM_PREFIX = '/v1/scim/v2';

/** The SCIM error of any failure: SCIM errors as they are; validation and body parsing 400 `invalidSyntax`; others by status. */
function toScimError(err: unknown): ScimError {
  if (err instanceof ScimError) return err;
  if (err instanceof GatewayError) return new ScimError(err.status, err.message, err.status === 400 ? 'invalidValue' : undefined);
  const e = err as FastifyError;
  const status = typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500 ? e.statusCode : 500;
  if (status === 500) return new ScimError(500, 'Internal error.');
  return new ScimError(status, e.message, status === 400 ? 'invalidSyntax' : undefined);
}

function send(reply: FastifyReply, status: number, body: unknown) {
  return reply.code(status).header('content-type', SCIM_JSON).send(JSON.stringify(body));
}

type Params = { id: string };
type Handler = (call: ScimCall, request: FastifyRequest) => Promise<unknown>;

/**
 * The SCIM 2.0 API (RFC 7643/7644, control-plane.md §5) under `/v1/scim/v2`, authenticated by a SCIM
 * token (`Authorization: Bearer`), not by a gateway key: its paths are public to the gateway's auth
 * hook and each handler checks the token (`scimCall`). Bodies are `application/scim+json` (or JSON).
 * Every failure, including validation, unknown paths and malformed JSON, is answered in the SCIM
 * error shape — the one exception to the decisions.md error shape. Hand-written rather than declared
 * resources: SCIM fixes its own paths, paging (`startIndex`, `count`), filters and bodies.
 */
export function registerScimRoutes(app: FastifyInstance, deps: GatewayDeps): void {
  app.register(
    async (scim) => {
      const parse = scim.getDefaultJsonParser('error', 'error');
      // The gateway's own JSON parser (server/http-edges.ts) refuses the same depth for `application/json`.
      scim.addContentTypeParser(SCIM_JSON, { parseAs: 'string' }, (request, body, done) => {
        if (nestsDeeperThan(body as string, MAX_BODY_JSON_DEPTH))
          done(new ScimError(400, 'The request is nested too deeply.', 'invalidSyntax'), undefined);
        else parse(request, body as string, done);
      });
      scim.setErrorHandler((err, request, reply) => {
        const e = toScimError(err);
        if (e.status >= 500) deps.logger.error({ err, requestId: request.id }, 'SCIM request failed');
        return send(reply, e.status, e.toBody());
      });
      scim.setNotFoundHandler((request, reply) =>
        send(reply, 404, new ScimError(404, `No SCIM endpoint ${request.method} ${request.url.split('?')[0]}.`).toBody()),
      );
      const config = { public: true };
      // Not in /openapi.json: SCIM clients follow RFC 7644 and /ServiceProviderConfig, not the gateway's document.
      const schema = { tags: ['scim'], hide: true };
      const route = (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, summary: string, ok: number, handler: Handler) =>
        scim.route({
          method,
          url,
          config,
          schema: { ...schema, summary },
          handler: async (request, reply) => {
            const call = await scimCall(deps, request);
            const body = await handler(call, request);
            if (ok === 204) return reply.code(204).send();
            return send(reply, ok, body);
          },
        });
      const q = (r: FastifyRequest) => (r.query ?? {}) as Record<string, unknown>;
      const id = (r: FastifyRequest) => (r.params as Params).id;

      route('GET', '/Users', 'List users (filter, startIndex, count)', 200, (c, r) => listUsers(c, q(r)));
      route('POST', '/Users', 'Provision a user', 201, (c, r) => createUser(c, r.body));
      route('GET', '/Users/:id', 'Read a user', 200, (c, r) => readUserResource(c, id(r)));
      route('PUT', '/Users/:id', 'Replace a user', 200, (c, r) => replaceUser(c, id(r), r.body));
      route('PATCH', '/Users/:id', 'Patch a user (active:false deactivates)', 200, (c, r) => patchUser(c, id(r), r.body));
      route('DELETE', '/Users/:id', 'Deprovision a user (deactivates it)', 204, (c, r) => deleteUserResource(c, id(r)));
      route('GET', '/Groups', 'List groups (filter, startIndex, count)', 200, (c, r) => listGroups(c, q(r)));
      route('POST', '/Groups', 'Create a group', 201, (c, r) => createGroup(c, r.body));
      route('GET', '/Groups/:id', 'Read a group', 200, (c, r) => readGroupResource(c, id(r), q(r)));
      route('PUT', '/Groups/:id', 'Replace a group', 200, (c, r) => replaceGroup(c, id(r), r.body));
      route('PATCH', '/Groups/:id', 'Patch a group (members, displayName)', 200, (c, r) => patchGroup(c, id(r), r.body));
      route('DELETE', '/Groups/:id', 'Delete a group', 204, (c, r) => deleteGroupResource(c, id(r)));
      route('GET', '/ServiceProviderConfig', 'Service provider configuration', 200, async (c) => serviceProviderConfig(c.base));
      route('GET', '/Schemas', 'Schemas', 200, async (c) => {
        const all = schemaResources(c.base);
        return listResponse(all, all.length, 1);
      });
      route('GET', '/Schemas/:id', 'One schema', 200, async (c, r) => {
        const s = schemaResources(c.base).find((x) => x.id === id(r));
        if (!s) throw notFound('Schema', id(r));
        return s;
      });
      route('GET', '/ResourceTypes', 'Resource types', 200, async (c) => {
        const all = resourceTypes(c.base);
        return listResponse(all, all.length, 1);
      });
      route('GET', '/ResourceTypes/:id', 'One resource type', 200, async (c, r) => {
        const t = resourceTypes(c.base).find((x) => x.id === id(r));
        if (!t) throw notFound('ResourceType', id(r));
        return t;
      });
    },
    { prefix: SCIM_PREFIX },
  );
}
