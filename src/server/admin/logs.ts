import { Type, type Static } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { listRequestLogs } from '../../store/repos/request-logs.js';
import type { GatewayDeps } from '../../gateway/deps.js';
import { workspaceScope } from '../middleware/auth/auth.js';
import { PageQuery, iso, pageOf } from './paging.js';

const ListQuery = Type.Object({ ...PageQuery, workspace_id: Type.Optional(Type.String()), trace_id: Type.Optional(Type.String()) }, { additionalProperties: false });

function parse(text: string | null): unknown {
  return text === null ? null : JSON.parse(text);
}

/** GET /v1/logs: the request log, newest first. */
export function registerLogRoutes(app: FastifyInstance, deps: GatewayDeps): void {
  app.get('/v1/logs', { config: { permission: 'logs.read' }, schema: { querystring: ListQuery, tags: ['logs'], summary: 'List request logs' } }, async (request) => {
    const q = request.query as Static<typeof ListQuery>;
    await deps.logs.flush();
    const { rows, total } = await listRequestLogs(deps.store, { workspaceIds: workspaceScope(request, deps.runtime, q.workspace_id), traceId: q.trace_id, ...pageOf(q) });
    return {
      object: 'list',
      total,
      data: rows.map((r) => ({ ...r, stream: r.stream === 1, metadata: parse(r.metadata), error: parse(r.error), hook_results: parse(r.hook_results), created_at: iso(r.created_at) })),
    };
  });
}
