import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { listAuditEntries, type AuditEntry } from '../../../infra/store/repos/audit-logs.js';
import type { GatewayDeps } from '../../../data-plane/pipeline/deps.js';
import { principalOf, tenantScope } from '../../../identity/authorize.js';
import { ErrorAnswer } from '../../resource/mount-resource.js';
import { ListAnswer, PageQuery, UnixOrIsoTime as Time, iso, pageOf } from '../../../identity/paging.js';
import { Nullable } from '../../../foundation/spec/nullable.js';

const Query = Type.Object(
  {
    ...PageQuery,
    start_time: Type.Optional(Time),
    end_time: Type.Optional(Time),
    resource_type: Type.Optional(Type.String()),
    action: Type.Optional(Type.String()),
    actor_id: Type.Optional(Type.String()),
    workspace_id: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
const Entry = Type.Object({
  id: Type.String(),
  created_at: Type.String(),
  organisation_id: Type.String(),
  workspace_id: Nullable(Type.String()),
  actor: Type.Object({ type: Type.String(), id: Nullable(Type.String()) }),
  action: Type.String(),
  resource_type: Type.String(),
  resource_id: Nullable(Type.String()),
  request_id: Nullable(Type.String()),
  client_ip: Nullable(Type.String()),
  details: Type.Record(Type.String(), Type.Unknown()),
});

/** Milliseconds of an ISO time or Unix seconds (a number-like query string is coerced to seconds). */
function ms(v: string | number | undefined, param: string): number | undefined {
  if (v === undefined) return undefined;
  const t = typeof v === 'number' ? v * 1000 : Date.parse(v);
  if (Number.isNaN(t)) throw new GatewayError('invalid_request', `querystring.${param} is not a valid time.`, { param });
  return t;
}

function present(e: AuditEntry) {
  return {
    id: e.id,
    created_at: iso(e.created_at) ?? '',
    organisation_id: e.organisation_id,
    workspace_id: e.workspace_id,
    actor: { type: e.actor_type, id: e.actor_id },
    action: e.action,
    resource_type: e.resource_type,
    resource_id: e.resource_id,
    request_id: e.request_id,
    client_ip: e.client_ip,
    details: e.details,
  };
}

/**
 * `GET /v1/audit-logs` (control-plane.md §4), newest first, filtered by time, resource type, action,
 * actor and workspace. Hand-written rather than a declared resource: it is read-only (the entries are
 * written by every other resource's writes) and open to organisation-level principals only.
 */
export function registerAuditLogRoutes(app: FastifyInstance, deps: GatewayDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/v1/audit-logs',
    {
      config: { permission: 'audit_logs.read' },
      schema: {
        querystring: Query,
        tags: ['audit logs'],
        summary: 'List audit log entries (organisation owners and admins)',
        response: { 200: ListAnswer(Entry), '4xx': ErrorAnswer, '5xx': ErrorAnswer },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      if (principal.workspaceId !== null) throw new GatewayError('forbidden', 'The audit log is readable by organisation-level keys only.');
      const q = request.query;
      const scope = tenantScope(principal, deps.runtime.current, q.workspace_id);
      const filter = {
        startTime: ms(q.start_time, 'start_time'),
        endTime: ms(q.end_time, 'end_time'),
        resourceType: q.resource_type,
        action: q.action,
        actorId: q.actor_id,
        workspaceId: q.workspace_id === undefined ? undefined : scope.workspaceIds[0],
        ...pageOf(q),
      };
      const { rows, total } = await listAuditEntries(deps.store.db, scope, filter);
      return { object: 'list' as const, data: rows.map(present), total };
    },
  );
}
