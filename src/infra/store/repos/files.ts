import type { Store } from '../store.js';
import type { GatewayFilesTable } from '../schema.js';

/** A stored file row: gateway-held content (`backend: 'gateway'`) or a mapping to a provider's file. */
export type FileRow = GatewayFilesTable & { backend: 'gateway' | 'provider' };

/** Records a file (or a provider file mapping; a second mapping of the same id replaces the first). */
export async function insertFile(store: Store, row: FileRow): Promise<void> {
  await store.db
    .insertInto('gateway_files')
    .values(row)
    .onConflict((oc) =>
      oc.column('id').doUpdateSet({
        provider: row.provider,
        virtual_key: row.virtual_key,
        filename: row.filename,
        purpose: row.purpose,
        bytes: row.bytes,
      }),
    )
    .execute();
}

/** A file of this workspace by id, or undefined. */
export async function getFile(store: Store, id: string, workspaceId: string): Promise<FileRow | undefined> {
  const row = await store.db
    .selectFrom('gateway_files')
    .selectAll()
    .where('id', '=', id)
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
  return row && fromRow(row);
}

/** Options of a gateway file listing (cursor paging by id, newest first unless `order: 'asc'`). */
export interface ListFilesOptions {
  after?: string;
  limit: number;
  order: 'asc' | 'desc';
  purpose?: string;
}

/** One page of the workspace's gateway-stored files, plus whether more follow. */
export async function listFiles(store: Store, workspaceId: string, opts: ListFilesOptions): Promise<{ rows: FileRow[]; hasMore: boolean }> {
  let q = store.db.selectFrom('gateway_files').selectAll().where('workspace_id', '=', workspaceId).where('backend', '=', 'gateway');
  if (opts.purpose) q = q.where('purpose', '=', opts.purpose);
  if (opts.after) {
    const cursor = await getFile(store, opts.after, workspaceId);
    if (cursor) {
      const op = opts.order === 'asc' ? '>' : '<';
      q = q.where((eb) =>
        eb.or([eb('created_at', op, cursor.created_at), eb.and([eb('created_at', '=', cursor.created_at), eb('id', op, cursor.id)])]),
      );
    }
  }
  const rows = await q
    .orderBy('created_at', opts.order)
    .orderBy('id', opts.order)
    .limit(opts.limit + 1)
    .execute();
  return { rows: rows.slice(0, opts.limit).map(fromRow), hasMore: rows.length > opts.limit };
}

/** Deletes a file row of this workspace; true when it existed. */
export async function deleteFileRow(store: Store, id: string, workspaceId: string): Promise<boolean> {
  const res = await store.db.deleteFrom('gateway_files').where('id', '=', id).where('workspace_id', '=', workspaceId).executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

function fromRow(r: GatewayFilesTable): FileRow {
  return { ...r, backend: r.backend as FileRow['backend'], bytes: Number(r.bytes), created_at: Number(r.created_at) };
}
