import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import { Type } from 'typebox';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { tryParseJson, isObject } from '../../../foundation/lib/json.js';
import { FILE_PURPOSES, type CursorList, type FileObject, type FilePurpose } from '../../../foundation/spec/batches.js';
import { deleteFileRow, getFile, insertFile, listFiles } from '../../../infra/store/repos/files.js';
import type { GatewayDeps } from '../../pipeline/deps.js';
import { GatewayFiles, isGatewayFileId, toFileObject } from './gateway-files.js';
import { multipartForward, type IncomingPart } from './multipart-forward.js';
import { resolveResourceTarget, ResourceForwarder, type ResourceTarget } from './provider-resource.js';
import { intQuery, rawQuery, strQuery } from './query-params.js';
import { StringEnum } from '../../../foundation/spec/string-enum.js';

const tags = ['files'];
const FileIdParams = Type.Object({ file_id: Type.String({ minLength: 1, maxLength: 128 }) });
const ListQuery = Type.Object({
  after: Type.Optional(Type.String()),
  limit: Type.Optional(Type.String({ description: 'integer 1..10000, default 10000' })),
  order: Type.Optional(StringEnum(['asc', 'desc'])),
  purpose: Type.Optional(Type.String()),
});

/** Settings of the files routes. */
export interface FilesRouteOptions {
  files: GatewayFiles;
  forwarder: ResourceForwarder;
  /** Largest upload, bytes. */
  maxFileBytes: number;
}

function isPurpose(value: unknown): value is FilePurpose {
  return typeof value === 'string' && (FILE_PURPOSES as readonly string[]).includes(value);
}

/** Sends a provider's JSON answer on as it came. */
async function relayJson(
  reply: FastifyReply,
  forwarder: ResourceForwarder,
  rt: ResourceTarget,
  res: Awaited<ReturnType<ResourceForwarder['send']>>,
): Promise<FastifyReply> {
  const text = await forwarder.relayText(rt, res);
  return reply.code(res.status).header('content-type', 'application/json').send(text);
}

/**
 * `/v1/files`: upload (multipart), list, get, content, delete. Requests naming a provider with a Files
 * API are forwarded to it (ids are the provider's; a mapping row remembers which provider holds them);
 * otherwise the gateway stores the file itself (`file-gw…` ids). Multipart parsing is registered in
 * this plugin's scope only, so other routes keep refusing non-JSON bodies.
 * @see https://platform.openai.com/docs/api-reference/files
 */
export function registerFilesRoutes(app: FastifyInstance, deps: GatewayDeps, opts: FilesRouteOptions): void {
  const { files, forwarder } = opts;
  const target = (request: FastifyRequest, remembered?: { provider: string | null; virtual_key: string | null }): ResourceTarget | null => {
    const rt = resolveResourceTarget(deps, request.headers, request.gw.workspaceId, 'files', remembered);
    return rt?.api ? rt : null;
  };

  app.register(async (scope) => {
    await scope.register(multipart, { limits: { fileSize: opts.maxFileBytes, files: 1, fields: 16, fieldSize: 1024 * 1024 } });

    scope.post(
      '/v1/files',
      {
        config: { permission: 'completions.write' },
        schema: { tags, summary: 'Upload a file (multipart: file, purpose)', consumes: ['multipart/form-data'] },
      },
      async (request, reply) => {
        if (!request.isMultipart())
          throw new GatewayError('invalid_request', 'Upload a file as multipart/form-data with the fields file and purpose.', {
            param: 'file',
          });
        const ws = request.gw.workspaceId;
        const rt = target(request);
        const parts = request.parts() as AsyncIterable<IncomingPart>;
        if (rt) {
          const mp = multipartForward();
          const sent = forwarder.send(rt, { method: 'POST', path: '/files', body: mp.body, contentType: mp.contentType });
          let pumpError: unknown;
          const pumped = mp.pump(parts).catch((err: unknown) => {
            pumpError = err;
            mp.body.destroy();
          });
          sent.catch(() => mp.body.destroy());
          let res: Awaited<typeof sent>;
          try {
            res = await sent;
          } finally {
            await pumped;
          }
          if (pumpError) throw uploadError(pumpError);
          const text = await forwarder.relayText(rt, res);
          const obj = tryParseJson(text);
          if (isObject(obj) && typeof obj.id === 'string') {
            await insertFile(deps.store, {
              id: obj.id,
              workspace_id: ws,
              backend: 'provider',
              provider: rt.adapter.name,
              virtual_key: rt.virtualKey,
              filename: String(obj.filename ?? ''),
              purpose: String(obj.purpose ?? ''),
              bytes: Number(obj.bytes ?? 0),
              status: String(obj.status ?? 'uploaded'),
              storage_key: null,
              created_at: deps.clock.now(),
            });
          }
          return reply.code(res.status).header('content-type', 'application/json').send(text);
        }
        let purpose: unknown;
        let stored: { id: string; filename: string; bytes: number } | undefined;
        try {
          for await (const part of parts) {
            if (part.type === 'field') {
              if (part.fieldname === 'purpose') purpose = part.value;
              continue;
            }
            if (part.fieldname !== 'file' || stored) {
              part.file.resume();
              continue;
            }
            if (purpose !== undefined && !isPurpose(purpose)) throw badPurpose();
            const id = files.newId();
            stored = { id, filename: part.filename || 'file', bytes: 0 };
            stored.bytes = await files.storage.put(id, part.file);
          }
        } catch (err) {
          if (stored) await files.storage.delete(stored.id);
          throw uploadError(err);
        }
        if (!stored) throw new GatewayError('invalid_request', "Missing required field 'file'.", { param: 'file' });
        if (!isPurpose(purpose)) {
          await files.storage.delete(stored.id);
          throw badPurpose();
        }
        const row = await files.record(ws, stored.id, stored.filename, purpose, stored.bytes);
        return reply.send(toFileObject(row));
      },
    );
  });

  app.get(
    '/v1/files',
    { config: { permission: 'completions.write' }, schema: { tags, summary: 'List files', querystring: ListQuery } },
    async (request, reply) => {
      const rt = target(request);
      if (rt) return relayJson(reply, forwarder, rt, await forwarder.send(rt, { method: 'GET', path: '/files' + rawQuery(request.url) }));
      const q = request.query as Record<string, unknown>;
      const limit = intQuery(q, 'limit', 1, 10_000, 10_000);
      const order = strQuery(q, 'order') === 'asc' ? 'asc' : 'desc';
      const { rows, hasMore } = await listFiles(deps.store, request.gw.workspaceId, {
        after: strQuery(q, 'after'),
        limit,
        order,
        purpose: strQuery(q, 'purpose'),
      });
      const data = rows.map(toFileObject);
      const body: CursorList<FileObject> = {
        object: 'list',
        data,
        first_id: data[0]?.id ?? null,
        last_id: data.at(-1)?.id ?? null,
        has_more: hasMore,
      };
      return body;
    },
  );

  app.get(
    '/v1/files/:file_id',
    { config: { permission: 'completions.write' }, schema: { tags, summary: 'Retrieve a file', params: FileIdParams } },
    async (request, reply) => {
      const { file_id } = request.params as { file_id: string };
      if (isGatewayFileId(file_id)) return toFileObject(await files.get(request.gw.workspaceId, file_id));
      const rt = target(request, await getFile(deps.store, file_id, request.gw.workspaceId));
      if (!rt) throw new GatewayError('not_found', `No such file: '${file_id}'.`, { param: 'file_id' });
      return relayJson(reply, forwarder, rt, await forwarder.send(rt, { method: 'GET', path: `/files/${encodeURIComponent(file_id)}` }));
    },
  );

  app.get(
    '/v1/files/:file_id/content',
    { config: { permission: 'completions.write' }, schema: { tags, summary: 'Retrieve file content', params: FileIdParams } },
    async (request, reply) => {
      const { file_id } = request.params as { file_id: string };
      if (isGatewayFileId(file_id)) {
        const row = await files.get(request.gw.workspaceId, file_id);
        const stream = await files.open(request.gw.workspaceId, file_id);
        return reply.header('content-type', 'application/octet-stream').header('content-length', row.bytes).send(stream);
      }
      const rt = target(request, await getFile(deps.store, file_id, request.gw.workspaceId));
      if (!rt) throw new GatewayError('not_found', `No such file: '${file_id}'.`, { param: 'file_id' });
      const res = await forwarder.send(rt, { method: 'GET', path: `/files/${encodeURIComponent(file_id)}/content` });
      const type = res.headers['content-type'];
      reply.code(res.status).header('content-type', typeof type === 'string' ? type : 'application/octet-stream');
      return reply.send(res.body);
    },
  );

  app.delete(
    '/v1/files/:file_id',
    { config: { permission: 'completions.write' }, schema: { tags, summary: 'Delete a file', params: FileIdParams } },
    async (request, reply) => {
      const { file_id } = request.params as { file_id: string };
      const ws = request.gw.workspaceId;
      if (isGatewayFileId(file_id)) {
        await files.remove(ws, file_id);
        return { id: file_id, object: 'file', deleted: true };
      }
      const rt = target(request, await getFile(deps.store, file_id, ws));
      if (!rt) throw new GatewayError('not_found', `No such file: '${file_id}'.`, { param: 'file_id' });
      const res = await forwarder.send(rt, { method: 'DELETE', path: `/files/${encodeURIComponent(file_id)}` });
      await deleteFileRow(deps.store, file_id, ws);
      return relayJson(reply, forwarder, rt, res);
    },
  );
}

function badPurpose(): GatewayError {
  return new GatewayError('invalid_request', `purpose must be one of ${FILE_PURPOSES.join(', ')}.`, { param: 'purpose' });
}

function uploadError(err: unknown): unknown {
  const code = (err as { code?: string })?.code;
  if (code === 'FST_REQ_FILE_TOO_LARGE')
    return new GatewayError('payload_too_large', 'The file is larger than the upload limit.', { param: 'file' });
  return err;
}
