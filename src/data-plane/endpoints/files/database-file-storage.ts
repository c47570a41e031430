import { Readable } from 'node:stream';
import { randomId } from '../../../foundation/lib/ids.js';
import { systemClock, type Clock } from '../../../foundation/lib/clock.js';
import type { Store } from '../../../infra/store/store.js';
import {
  deleteChunks,
  insertPendingChunk,
  lastChunkSeq,
  publishChunks,
  readChunks,
  sweepPendingChunks,
} from '../../../infra/store/repos/file-chunks.js';
import type { FileStorage } from './file-storage.js';

/** Size of a stored chunk: 1 MiB (a bytea / blob row each). */
export const DEFAULT_CHUNK_BYTES = 1024 * 1024;
/** An upload still pending after this long belongs to a writer that died; its chunks are swept. */
const PENDING_TTL_MS = 6 * 60 * 60 * 1000;
/** At most one sweep per process per this interval (run on a put). */
const SWEEP_EVERY_MS = 10 * 60 * 1000;

/** Options of {@link DatabaseFileStorage}. */
export interface DatabaseFileStorageOptions {
  /** Bytes per chunk row (default 1 MiB). */
  chunkBytes?: number;
  /** Chunks fetched per query while reading (default 1). */
  chunksPerRead?: number;
  clock?: Clock;
}

/**
 * File storage in the gateway's database (table `file_chunks`), so that every replica sharing
 * PostgreSQL serves the same files. Writes stream: the body is cut into chunks of `chunkBytes`, each
 * flushed as a row as soon as it is full (at most one chunk is held in memory), under a temporary id
 * that is renamed to the key in one transaction once the body ended — a reader sees the whole file or
 * nothing. Reads stream too: chunks are fetched by sequence number, `chunksPerRead` per query, as the
 * consumer pulls. A failed upload removes its rows; rows of a writer that died are swept after 6 h.
 */
export class DatabaseFileStorage implements FileStorage {
  private readonly chunkBytes: number;
  private readonly chunksPerRead: number;
  private readonly clock: Clock;
  private lastSweep = 0;

  constructor(
    private readonly store: Store,
    opts: DatabaseFileStorageOptions = {},
  ) {
    this.chunkBytes = opts.chunkBytes ?? DEFAULT_CHUNK_BYTES;
    this.chunksPerRead = opts.chunksPerRead ?? 1;
    this.clock = opts.clock ?? systemClock;
  }

  async put(key: string, body: Readable): Promise<number> {
    checkKey(key);
    await this.maybeSweep();
    const tempId = `~upload~${randomId(16)}`;
    const now = this.clock.now();
    let seq = 0;
    let bytes = 0;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const flush = async (size: number): Promise<void> => {
      const all = pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingBytes);
      await insertPendingChunk(this.store, tempId, seq++, all.subarray(0, size), now);
      const rest = all.subarray(size);
      pending = rest.length ? [rest] : [];
      pendingBytes = rest.length;
    };
    try {
      for await (const piece of body) {
        const buf = typeof piece === 'string' ? Buffer.from(piece) : (piece as Buffer);
        bytes += buf.length;
        pending.push(buf);
        pendingBytes += buf.length;
        while (pendingBytes >= this.chunkBytes) await flush(this.chunkBytes);
      }
      // The last partial chunk; an empty file still gets one (empty) row so that it exists.
      if (pendingBytes > 0 || seq === 0) await flush(pendingBytes);
      await publishChunks(this.store, tempId, key, seq);
    } catch (err) {
      body.destroy();
      await deleteChunks(this.store, tempId);
      throw err;
    }
    return bytes;
  }

  async get(key: string): Promise<Readable | undefined> {
    checkKey(key);
    const last = await lastChunkSeq(this.store, key);
    if (last === undefined) return undefined;
    return new ChunkReader(this.store, key, last, this.chunksPerRead);
  }

  async delete(key: string): Promise<void> {
    checkKey(key);
    await deleteChunks(this.store, key);
  }

  /** Removes chunks of uploads abandoned by a dead writer, at most once per interval per process. */
  private async maybeSweep(): Promise<void> {
    const now = this.clock.now();
    if (now - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = now;
    await sweepPendingChunks(this.store, now - PENDING_TTL_MS);
  }
}

function checkKey(key: string): void {
  if (key.length === 0 || key.length > 128 || key.startsWith('~')) throw new Error(`invalid storage key '${key}'`);
}

/** Streams a stored file chunk by chunk; fails if the file disappears or changes while being read. */
class ChunkReader extends Readable {
  private next = 0;

  constructor(
    private readonly store: Store,
    private readonly key: string,
    private readonly last: number,
    private readonly perRead: number,
  ) {
    super();
  }

  override _read(): void {
    if (this.next > this.last) {
      this.push(null);
      return;
    }
    readChunks(this.store, this.key, this.next, Math.min(this.perRead, this.last - this.next + 1)).then(
      (chunks) => {
        if (this.destroyed) return;
        if (chunks.length === 0 || chunks.some((c, i) => c.seq !== this.next + i)) {
          this.destroy(new Error(`the content of '${this.key}' changed while it was being read`));
          return;
        }
        this.next += chunks.length;
        const data = chunks.length === 1 ? chunks[0]!.data : Buffer.concat(chunks.map((c) => c.data));
        if (data.length) this.push(data);
        if (this.next > this.last) this.push(null);
        else if (!data.length) this._read();
      },
      (err: unknown) => this.destroy(err as Error),
    );
  }
}
