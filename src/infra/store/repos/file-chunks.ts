import type { Store } from '../store.js';
import { isUniqueViolation } from '../store.js';

/** One stored chunk of a file's content. */
export interface FileChunk {
  seq: number;
  data: Buffer;
}

/** Writes one chunk of an upload in progress (under its temporary id, marked pending since `now`). */
export async function insertPendingChunk(store: Store, tempId: string, seq: number, data: Buffer, now: number): Promise<void> {
  await store.db.insertInto('file_chunks').values({ file_id: tempId, seq, data, pending_since: now }).execute();
}

/**
 * Publishes a completed upload: in one transaction, removes any previous content of `fileId` and
 * renames the chunks of `tempId` to it, so readers see the old content or the whole new one, never a
 * mix. Fails (leaving the previous content) unless exactly `chunks` rows were renamed, i.e. when the
 * upload's rows were swept meanwhile. Two writers of the same id racing on PostgreSQL: the loser hits the primary key once the
 * winner commits and retries (the last to commit wins).
 */
export async function publishChunks(store: Store, tempId: string, fileId: string, chunks: number): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await store.db.transaction().execute(async (tx) => {
        await tx.deleteFrom('file_chunks').where('file_id', '=', fileId).execute();
        const res = await tx
          .updateTable('file_chunks')
          .set({ file_id: fileId, pending_since: null })
          .where('file_id', '=', tempId)
          .executeTakeFirst();
        if (Number(res.numUpdatedRows) !== chunks)
          throw new Error(`upload of '${fileId}' lost chunks (${Number(res.numUpdatedRows)} of ${chunks} left)`);
      });
      return;
    } catch (err) {
      if (!isUniqueViolation(err) || attempt >= 4) throw err;
    }
  }
}

/** Removes every chunk of a file (or of an abandoned upload); no error when there is none. */
export async function deleteChunks(store: Store, fileId: string): Promise<void> {
  await store.db.deleteFrom('file_chunks').where('file_id', '=', fileId).execute();
}

/** The highest chunk number of a file, or undefined when the file has no content stored. */
export async function lastChunkSeq(store: Store, fileId: string): Promise<number | undefined> {
  const row = await store.db
    .selectFrom('file_chunks')
    .select((eb) => eb.fn.max('seq').as('last'))
    .where('file_id', '=', fileId)
    .executeTakeFirst();
  return row?.last === null || row?.last === undefined ? undefined : Number(row.last);
}

/** Up to `limit` chunks of a file from chunk `fromSeq` on, in order. */
export async function readChunks(store: Store, fileId: string, fromSeq: number, limit: number): Promise<FileChunk[]> {
  const rows = await store.db
    .selectFrom('file_chunks')
    .select(['seq', 'data'])
    .where('file_id', '=', fileId)
    .where('seq', '>=', fromSeq)
    .orderBy('seq')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ seq: Number(r.seq), data: Buffer.isBuffer(r.data) ? r.data : Buffer.from(r.data) }));
}

/** Deletes chunks of uploads pending since before `olderThan` (writers that died mid-upload); returns how many rows went. */
export async function sweepPendingChunks(store: Store, olderThan: number): Promise<number> {
  const res = await store.db
    .deleteFrom('file_chunks')
    .where('pending_since', 'is not', null)
    .where('pending_since', '<', olderThan)
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}
