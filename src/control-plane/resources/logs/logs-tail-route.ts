import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type Static } from 'typebox';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { sseEvent } from '../../../foundation/lib/sse.js';
import type { GatewayDeps } from '../../../data-plane/pipeline/deps.js';
import type { Principal } from '../../../kernel/principal.js';
import type { TenantScope } from '../../../kernel/tenant-scope.js';
import { SESSIONS_SECTION, type SessionsSection } from '../../../runtime/sessions-section.js';
import { sectionOf, type RuntimeSnapshot } from '../../../runtime/snapshot.js';
import type { RequestLogRow } from '../../../infra/store/repos/request-logs.js';
import { principalOf, tenantScope } from '../../../identity/authorize.js';
import { ErrorAnswer } from '../../resource/mount-resource.js';
import { logsResource } from './logs.resource.js';

/** How the tail polls the store and how long one connection lives; tests shorten them. */
export interface TailOptions {
  /** Between two reads of the store (default 1000 ms). */
  pollMs: number;
  /** Rows written up to this long after their request started are still shown (default 120 s). */
  lagMs: number;
  /** At most this many rows per read (default 100); more are reported by a `gap` event. */
  batch: number;
  /** A connection ends after this long; the browser's EventSource reconnects with `Last-Event-ID` (default 10 min). */
  maxConnectionMs: number;
  /** A comment line keeps idle connections open through proxies (default 15 s). */
  heartbeatMs: number;
}

const DEFAULTS: TailOptions = { pollMs: 1000, lagMs: 120_000, batch: 100, maxConnectionMs: 600_000, heartbeatMs: 15_000 };

type ListQuery = Static<typeof logsResource.schemas.listQuery>;

const TailQuery = Type.Object(
  { workspace_id: Type.Optional(Type.String()), ...logsResource.schemas.listQuery.properties },
  { additionalProperties: false },
);

/** `<created_at ms>:<id>` of the last row sent: the event id a reconnecting EventSource sends back as `Last-Event-ID`. */
function cursorOf(header: unknown): number | undefined {
  if (typeof header !== 'string') return undefined;
  const ms = Number(header.split(':')[0]);
  return Number.isSafeInteger(ms) && ms >= 0 ? ms : undefined;
}

/** Whether the tail's credential still stands: its session or key is still in the snapshot and not expired. */
function stillValid(snapshot: RuntimeSnapshot, request: FastifyRequest, principal: Principal, now: number): boolean {
  const session = request.gw.session;
  if (session) {
    const sessions = sectionOf<SessionsSection>(snapshot, SESSIONS_SECTION);
    if (!sessions) return false;
    for (const s of sessions.values()) if (s.id === session.id) return s.expiresAt > now;
    return false;
  }
  for (const k of snapshot.apiKeysByHash.values()) if (k.id === principal.keyId && (k.expiresAt === null || k.expiresAt > now)) return true;
  return false;
}

/**
 * `GET /v1/logs/tail`: new request-log rows as server-sent events (`event: log`, the row as `GET /v1/logs`
 * answers it), with the list's filters and the same visibility (the tenant scope and `dataVisibility`
 * through the logs resource's own repository). It works across replicas: each connection polls the store
 * every `pollMs` for rows started in the last `lagMs` and sends those it has not sent yet, oldest first.
 * `start_time` (default: now) sends earlier rows first; `end_time` is refused (a tail has no end). Every
 * event's id is a cursor; a reconnect with `Last-Event-ID` resumes after it (rows of that same millisecond
 * may come again: clients key rows by `id`). A `gap` event says rows were skipped because more than
 * `batch` arrived between two reads. The connection ends when its key or session is revoked or expires,
 * after `maxConnectionMs` (the EventSource reconnects and is authenticated afresh), and at shutdown.
 * A request must accept `text/event-stream` (400 otherwise: a client expecting JSON would wait forever).
 * Hand-written rather than a resource action: it answers a stream, not JSON. Permission `logs.read`.
 */
export function registerLogsTailRoute(app: FastifyInstance, deps: GatewayDeps, options: Partial<TailOptions> = {}): void {
  const opts = { ...DEFAULTS, ...options };
  const open = new Set<() => void>();
  app.addHook('preClose', (done) => {
    for (const end of open) end();
    done();
  });
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/v1/logs/tail',
    {
      config: { permission: 'logs.read' },
      // A HEAD would open a stream with no body to send.
      exposeHeadRoute: false,
      schema: {
        querystring: TailQuery,
        tags: ['logs'],
        summary: 'Follow new request-log rows as server-sent events (same filters and visibility as the list)',
        produces: ['text/event-stream'],
        response: {
          200: Type.String({ description: 'Server-sent events: `log` (a log row), `gap` ({skipped}), `ready` ({cursor}).' }),
          '4xx': ErrorAnswer,
          '5xx': ErrorAnswer,
        },
      },
    },
    async (request, reply) => {
      const accept = request.headers.accept;
      if (typeof accept !== 'string' || !accept.includes('text/event-stream')) {
        throw new GatewayError(
          'invalid_request',
          'GET /v1/logs/tail answers server-sent events: send Accept: text/event-stream (GET /v1/logs lists rows as JSON).',
          { param: 'accept' },
        );
      }
      const { workspace_id: workspaceId, ...filters } = request.query;
      const query = filters as ListQuery;
      if (query.end_time !== undefined)
        throw new GatewayError('invalid_request', 'querystring.end_time: a tail has no end; use GET /v1/logs for a closed range.', {
          param: 'end_time',
        });
      const principal = principalOf(request);
      const scope: TenantScope = tenantScope(principal, deps.runtime.current, workspaceId);
      const startedAt = Date.now();
      const resumed = cursorOf(request.headers['last-event-id']);
      let from = resumed ?? startedAt;
      if (resumed === undefined && query.start_time !== undefined) {
        from = typeof query.start_time === 'number' ? query.start_time * 1000 : Date.parse(query.start_time);
        if (Number.isNaN(from))
          throw new GatewayError('invalid_request', 'querystring.start_time is not a valid time.', { param: 'start_time' });
      }
      // Checks the filters the way the list does (400 before the stream starts).
      await logsResource.repo.list(
        deps.store.db,
        scope,
        { ...query, start_time: new Date(startedAt).toISOString() },
        { limit: 1, offset: 0 },
        principal,
      );

      reply.hijack();
      const raw = reply.raw;
      raw.writeHead(200, {
        ...(reply.getHeaders() as Record<string, string>),
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        'x-accel-buffering': 'no',
      });
      raw.write(`retry: 2000\n\n`);
      raw.write(sseEvent('ready', { cursor: from }));

      /** Ids sent, with their start time: a row is sent once per connection. */
      const sent = new Map<string, number>();
      let timer: NodeJS.Timeout | undefined;
      let lastWrite = Date.now();
      let ended = false;
      const end = () => {
        if (ended) return;
        ended = true;
        clearTimeout(timer);
        open.delete(end);
        raw.end();
      };
      open.add(end);
      raw.on('close', end);

      const poll = async () => {
        if (
          deps.lifecycle.closing ||
          Date.now() - startedAt >= opts.maxConnectionMs ||
          !stillValid(deps.runtime.current, request, principal, deps.clock.now())
        )
          return end();
        // Rows carry their request's start time (Date.now() of the request), so the window is in wall-clock time.
        const since = Math.max(from, Date.now() - opts.lagMs);
        const { rows, total } = await logsResource.repo.list(
          deps.store.db,
          scope,
          { ...query, start_time: new Date(since).toISOString() },
          { limit: opts.batch, offset: 0 },
          principal,
        );
        if (ended) return;
        for (const [id, t] of sent) if (t < since) sent.delete(id);
        const fresh = rows.filter((r) => !sent.has(r.id)).reverse();
        const skipped = total - sent.size - fresh.length;
        if (skipped > 0) raw.write(sseEvent('gap', { skipped }));
        for (const r of fresh as RequestLogRow[]) {
          const t = Number(r.created_at);
          sent.set(r.id, t);
          raw.write(`id: ${t}:${r.id}\n`);
          raw.write(sseEvent('log', logsResource.listItem!.present(r)));
          lastWrite = Date.now();
        }
        if (Date.now() - lastWrite >= opts.heartbeatMs) {
          raw.write(': keep-alive\n\n');
          lastWrite = Date.now();
        }
      };
      const loop = () => {
        poll().then(
          () => {
            if (!ended) timer = setTimeout(loop, opts.pollMs);
          },
          (err: Error) => {
            deps.logger.warn({ err: err.message }, 'log tail: reading the store failed; the connection ends and the client reconnects');
            end();
          },
        );
      };
      loop();
    },
  );
}
