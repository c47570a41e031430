import { readBodyText } from '../../../foundation/lib/http-client.js';
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type, type Static } from 'typebox';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { prefixedId } from '../../../foundation/lib/ids.js';
import { isObject, tryParseJson } from '../../../foundation/lib/json.js';
import type { GatewayFiles } from '../files/gateway-files.js';
import { isGatewayFileId } from '../files/gateway-files.js';
import { resolveResourceTarget, type ResourceForwarder, type ResourceTarget } from '../files/provider-resource.js';
import { intQuery, rawQuery, strQuery } from '../files/query-params.js';
import { BATCH_ENDPOINTS, type BatchObject, type CursorList } from '../../../foundation/spec/batches.js';
import type { GatewayDeps } from '../../pipeline/deps.js';
import { getBatch, insertBatch, listBatches, transitionBatch } from '../../../infra/store/repos/batches.js';
import { getFile } from '../../../infra/store/repos/files.js';
import { captureRoute, sealedRoute } from './capture-route.js';
import { publicBatch, seconds, TERMINAL, viewBatch } from './batch-view.js';
import { StringEnum } from '../../../foundation/spec/string-enum.js';
import { Nullable } from '../../../foundation/spec/nullable.js';

const tags = ['batches'];
const CreateBody = Type.Object(
  {
    input_file_id: Type.String({ minLength: 1, maxLength: 128 }),
    completion_window: StringEnum(['immediate', '24h']),
    endpoint: StringEnum(BATCH_ENDPOINTS),
    metadata: Type.Optional(Nullable(Type.Record(Type.String(), Type.String()))),
    output_expires_after: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
);
const BatchIdParams = Type.Object({ batch_id: Type.String({ minLength: 1, maxLength: 128 }) });
const ListQuery = Type.Object({
  after: Type.Optional(Type.String()),
  limit: Type.Optional(Type.String({ description: 'integer 1..100, default 20' })),
});

/** Checks batch metadata: at most 16 pairs, keys up to 64 characters, values up to 512. */
export function checkMetadata(metadata: Record<string, string> | null | undefined): void {
  if (!metadata) return;
  const entries = Object.entries(metadata);
  if (entries.length > 16) throw new GatewayError('invalid_request', 'metadata may hold at most 16 pairs.', { param: 'metadata' });
  for (const [k, v] of entries) {
    if (k.length > 64)
      throw new GatewayError('invalid_request', `metadata key '${k.slice(0, 20)}…' is longer than 64 characters.`, {
        param: `metadata.${k}`,
      });
    if (v.length > 512)
      throw new GatewayError('invalid_request', `metadata.${k} is longer than 512 characters.`, { param: `metadata.${k}` });
  }
}

async function relay(
  reply: FastifyReply,
  forwarder: ResourceForwarder,
  rt: ResourceTarget,
  res: Awaited<ReturnType<ResourceForwarder['send']>>,
): Promise<FastifyReply> {
  return reply
    .code(res.status)
    .header('content-type', 'application/json')
    .send(await forwarder.relayText(rt, res));
}

/**
 * The input file of a gateway-managed batch must exist for the creating workspace, checked at creation
 * (404 `not_found`, param `input_file_id`) rather than failing the batch later: a gateway file of this
 * workspace with purpose `batch`, or a file the named provider's Files API knows (its other errors are kept).
 */
async function checkInputFile(
  deps: GatewayDeps,
  files: GatewayFiles,
  forwarder: ResourceForwarder,
  headers: IncomingHttpHeaders,
  ws: string,
  fileId: string,
): Promise<void> {
  const missing = (provider?: string) => new GatewayError('not_found', `No such file: '${fileId}'.`, { param: 'input_file_id', provider });
  if (isGatewayFileId(fileId)) {
    const file = await files.get(ws, fileId).catch((err: unknown) => {
      if (err instanceof GatewayError && err.code === 'not_found') throw missing();
      throw err;
    });
    if (file.purpose !== 'batch')
      throw new GatewayError('invalid_request', `File '${file.id}' was uploaded with purpose '${file.purpose}', not 'batch'.`, {
        param: 'input_file_id',
      });
    return;
  }
  const rt = resolveResourceTarget(deps, headers, ws, 'files', await getFile(deps.store, fileId, ws));
  if (!rt?.api) throw missing();
  try {
    const res = await forwarder.send(rt, { method: 'GET', path: `/files/${encodeURIComponent(fileId)}` });
    await readBodyText(res);
  } catch (err) {
    if (err instanceof GatewayError && err.status === 404) throw missing(rt.adapter.name);
    throw err;
  }
}

/**
 * `/v1/batches`: provider-native (completion window `24h`, a provider with a batch API and a file it
 * holds: forwarded, the provider's ids kept with a mapping row) or gateway-managed (`immediate`, or any
 * other provider: validated and run line by line by the batch worker).
 * @see https://platform.openai.com/docs/api-reference/batch
 */
export function registerBatchesRoutes(
  app: FastifyInstance,
  deps: GatewayDeps,
  opts: { files: GatewayFiles; forwarder: ResourceForwarder; poke(): void },
): void {
  const { files, forwarder } = opts;

  app.post(
    '/v1/batches',
    { config: { permission: 'completions.write' }, schema: { tags, summary: 'Create a batch', body: CreateBody } },
    async (request, reply) => {
      const body = request.body as Static<typeof CreateBody>;
      checkMetadata(body.metadata);
      const ws = request.gw.workspaceId;
      const rt = resolveResourceTarget(deps, request.headers, ws, 'batches');
      if (body.completion_window === '24h' && rt?.api && !isGatewayFileId(body.input_file_id)) {
        const res = await forwarder.send(rt, {
          method: 'POST',
          path: '/batches',
          body: JSON.stringify(body),
          contentType: 'application/json',
        });
        const text = await forwarder.relayText(rt, res);
        const obj = tryParseJson(text);
        if (isObject(obj) && typeof obj.id === 'string') {
          const now = deps.clock.now();
          await insertBatch(deps.store, {
            id: obj.id,
            workspace_id: ws,
            mode: 'native',
            provider: rt.adapter.name,
            virtual_key: rt.virtualKey,
            status: (obj.status as BatchObject['status']) ?? 'validating',
            batch: obj as unknown as BatchObject,
            route: { headers: {}, organisation_id: request.gw.organisationId, api_key_id: request.gw.key?.id ?? null },
            lease_owner: null,
            lease_until: null,
            created_at: now,
            updated_at: now,
          });
        }
        return reply.code(res.status).header('content-type', 'application/json').send(text);
      }
      await checkInputFile(deps, files, forwarder, request.headers, ws, body.input_file_id);
      const now = deps.clock.now();
      const batch: BatchObject = {
        id: prefixedId('batch_gw', 22),
        object: 'batch',
        endpoint: body.endpoint,
        errors: null,
        input_file_id: body.input_file_id,
        completion_window: body.completion_window,
        status: 'validating',
        output_file_id: null,
        error_file_id: null,
        created_at: seconds(now),
        in_progress_at: null,
        expires_at: seconds(now) + 24 * 3600,
        finalizing_at: null,
        completed_at: null,
        failed_at: null,
        expired_at: null,
        cancelling_at: null,
        cancelled_at: null,
        request_counts: { total: 0, completed: 0, failed: 0 },
        metadata: body.metadata ?? null,
      };
      await insertBatch(deps.store, {
        id: batch.id,
        workspace_id: ws,
        mode: 'gateway',
        provider: rt?.adapter.name ?? null,
        virtual_key: rt?.virtualKey ?? null,
        status: 'validating',
        batch,
        route: sealedRoute(deps.secrets, batch.id, captureRoute(request.headers, request.gw)),
        lease_owner: null,
        lease_until: null,
        created_at: now,
        updated_at: now,
      });
      opts.poke();
      return publicBatch(batch);
    },
  );

  app.get(
    '/v1/batches',
    { config: { permission: 'completions.write' }, schema: { tags, summary: 'List batches', querystring: ListQuery } },
    async (request, reply) => {
      const q = request.query as Record<string, unknown>;
      const limit = intQuery(q, 'limit', 1, 100, 20);
      const rt = resolveResourceTarget(deps, request.headers, request.gw.workspaceId, 'batches');
      if (rt?.api)
        return relay(reply, forwarder, rt, await forwarder.send(rt, { method: 'GET', path: '/batches' + rawQuery(request.url) }));
      const { rows, hasMore } = await listBatches(deps.store, request.gw.workspaceId, strQuery(q, 'after'), limit);
      const data = await Promise.all(rows.map((r) => viewBatch(deps.store, r)));
      const list: CursorList<BatchObject> = {
        object: 'list',
        data,
        first_id: data[0]?.id ?? null,
        last_id: data.at(-1)?.id ?? null,
        has_more: hasMore,
      };
      return list;
    },
  );

  app.get(
    '/v1/batches/:batch_id',
    { config: { permission: 'completions.write' }, schema: { tags, summary: 'Retrieve a batch', params: BatchIdParams } },
    async (request, reply) => {
      const { batch_id } = request.params as Static<typeof BatchIdParams>;
      const row = await getBatch(deps.store, batch_id, request.gw.workspaceId);
      if (row?.mode === 'gateway') return viewBatch(deps.store, row);
      const rt = resolveResourceTarget(deps, request.headers, request.gw.workspaceId, 'batches', row);
      if (!rt?.api) throw new GatewayError('not_found', `No such batch: '${batch_id}'.`, { param: 'batch_id' });
      return relay(reply, forwarder, rt, await forwarder.send(rt, { method: 'GET', path: `/batches/${encodeURIComponent(batch_id)}` }));
    },
  );

  app.post(
    '/v1/batches/:batch_id/cancel',
    { config: { permission: 'completions.write' }, schema: { tags, summary: 'Cancel a batch', params: BatchIdParams } },
    async (request, reply) => {
      const { batch_id } = request.params as Static<typeof BatchIdParams>;
      const ws = request.gw.workspaceId;
      const row = await getBatch(deps.store, batch_id, ws);
      if (row?.mode === 'gateway') {
        if (row.status === 'cancelling') return viewBatch(deps.store, row);
        if (TERMINAL.has(row.status) || row.status === 'finalizing') {
          throw new GatewayError('conflict', `Batch '${batch_id}' is ${row.status} and can no longer be cancelled.`, { param: 'batch_id' });
        }
        const now = deps.clock.now();
        const batch: BatchObject = { ...row.batch, status: 'cancelling', cancelling_at: seconds(now) };
        if (!(await transitionBatch(deps.store, batch_id, ['validating', 'in_progress'], batch, now, true))) {
          throw new GatewayError('conflict', `Batch '${batch_id}' changed state; retry the cancel.`, { param: 'batch_id' });
        }
        opts.poke();
        return viewBatch(deps.store, { ...row, status: 'cancelling', batch });
      }
      const rt = resolveResourceTarget(deps, request.headers, ws, 'batches', row);
      if (!rt?.api) throw new GatewayError('not_found', `No such batch: '${batch_id}'.`, { param: 'batch_id' });
      return relay(
        reply,
        forwarder,
        rt,
        await forwarder.send(rt, { method: 'POST', path: `/batches/${encodeURIComponent(batch_id)}/cancel` }),
      );
    },
  );
}
