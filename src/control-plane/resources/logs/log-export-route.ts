import type { OutgoingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { readRequestLogPage, type LogCursor } from '../../../infra/store/repos/request-logs.js';
import type { GatewayDeps } from '../../../data-plane/pipeline/deps.js';
import { principalOf, tenantScope } from '../../../identity/authorize.js';
import { ErrorAnswer } from '../../resource/mount-resource.js';
import { LogFilterQuery, METADATA_QUERY, filterOf, type LogFilterInput } from './log-filter.js';
import { presentLogItem } from './logs.resource.js';
import { retentionStart } from './retention.js';

/** Rows per store read of an export: one page in memory at a time. */
export const EXPORT_PAGE_ROWS = 500;

const ExportQuery = Type.Object(
  { ...LogFilterQuery, workspace_id: Type.Optional(Type.String()) },
  { additionalProperties: false, patternProperties: METADATA_QUERY },
);

/**
 * `GET /v1/logs/export` (control-plane.md §8): every row the list's filters match, newest first, as
 * NDJSON (one list item per line). Hand-written rather than a declared resource action: its answer is
 * a stream, not one JSON value. Memory stays constant whatever the row count: rows are read by keyset
 * pages (`EXPORT_PAGE_ROWS`), and the next page is read only once the client took the previous one
 * (the stream's backpressure). The list's visibility applies (the repository's reads).
 */
export function registerLogExportRoute(app: FastifyInstance, deps: GatewayDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/v1/logs/export',
    {
      config: { permission: 'logs.read' },
      schema: {
        querystring: ExportQuery,
        tags: ['logs'],
        summary: 'Export logs as NDJSON (the list filters; newest first)',
        produces: ['application/x-ndjson'],
        response: { '4xx': ErrorAnswer, '5xx': ErrorAnswer },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const scope = tenantScope(principal, deps.runtime.current, request.query.workspace_id);
      const filter = filterOf(request.query as LogFilterInput, { retainedSince: retentionStart(deps) });
      await deps.logs.flush();
      const db = deps.store.db;
      async function* lines(): AsyncGenerator<string> {
        let cursor: LogCursor | null = null;
        for (;;) {
          const rows = await readRequestLogPage(db, scope, principal, filter, cursor, EXPORT_PAGE_ROWS);
          if (rows.length > 0) yield rows.map((r) => JSON.stringify(presentLogItem(r)) + '\n').join('');
          if (rows.length < EXPORT_PAGE_ROWS) return;
          const last = rows[rows.length - 1]!;
          cursor = { createdAt: Number(last.created_at), id: last.id };
        }
      }
      // Written straight to the socket (like an event stream): `pipeline` pulls the next page only
      // when the socket drained, and ends the reads when the client goes away.
      reply.hijack();
      reply.raw.writeHead(200, { ...(reply.getHeaders() as OutgoingHttpHeaders), 'content-type': 'application/x-ndjson; charset=utf-8' });
      try {
        await pipeline(Readable.from(lines(), { objectMode: false, highWaterMark: 1 }), reply.raw);
      } catch (err) {
        // The client left, or the store failed mid-export: the status line is gone, so the connection ends early.
        deps.logger.warn({ err: (err as Error)?.message }, 'log export ended early');
        reply.raw.destroy();
      }
    },
  );
}
