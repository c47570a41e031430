import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { FakeClock } from '../../src/foundation/lib/clock.js';
import { randomId } from '../../src/foundation/lib/ids.js';
import type { FileStorage } from '../../src/data-plane/endpoints/files/file-storage.js';
import { LocalFileStorage } from '../../src/data-plane/endpoints/files/local-file-storage.js';
import { DatabaseFileStorage } from '../../src/data-plane/endpoints/files/database-file-storage.js';
import { fileStorageKind } from '../../src/data-plane/endpoints/files/files-capability.js';
import { insertPendingChunk } from '../../src/infra/store/repos/file-chunks.js';
import type { Store } from '../../src/infra/store/store.js';
import { STORE_KINDS } from '../helpers/stores.js';

const MiB = 1024 * 1024;

/** One FileStorage implementation under test. */
interface Backend {
  storage: FileStorage;
  /** The database under it (database storage only). */
  store?: Store;
  dispose(): Promise<void>;
}

const BACKENDS: Array<{ name: string; open(): Promise<Backend> }> = [
  {
    name: 'disk',
    async open() {
      const dir = mkdtempSync(join(tmpdir(), 'gw-fs-conf-'));
      return { storage: new LocalFileStorage(join(dir, 'files')), dispose: async () => rmSync(dir, { recursive: true, force: true }) };
    },
  },
  ...STORE_KINDS.map((kind) => ({
    name: `database on ${kind.name}`,
    async open(): Promise<Backend> {
      const h = await kind.open();
      return { storage: new DatabaseFileStorage(h.store), store: h.store, dispose: () => h.dispose() };
    },
  })),
];

/** A source yielding `data` in pieces of `piece` bytes, one per pull. */
function piecewise(data: Buffer, piece = 64 * 1024): Readable {
  let at = 0;
  return new Readable({
    read() {
      if (at >= data.length) return void this.push(null);
      this.push(data.subarray(at, at + piece));
      at += piece;
    },
  });
}

/** Reads a stream to the end, keeping the size of each chunk it delivered. */
async function drain(stream: Readable): Promise<{ data: Buffer; sizes: number[] }> {
  const parts: Buffer[] = [];
  for await (const c of stream) parts.push(c as Buffer);
  return { data: Buffer.concat(parts), sizes: parts.map((p) => p.length) };
}

const newKey = () => `file-gw${randomId(16)}`;

describe.each(BACKENDS)('FileStorage conformance: $name', ({ name, open }) => {
  let b: Backend;
  beforeAll(async () => {
    b = await open();
  });
  afterAll(async () => {
    await b?.dispose();
  });

  it('round-trips a multi-chunk file of random bytes, streaming it back in several chunks', async () => {
    const data = randomBytes(3.5 * MiB);
    const key = newKey();
    expect(await b.storage.put(key, piecewise(data))).toBe(data.length);
    const stream = await b.storage.get(key);
    expect(stream).toBeDefined();
    const { data: back, sizes } = await drain(stream!);
    expect(back.equals(data)).toBe(true);
    // Never the whole file at once: several reads of at most one storage chunk (1 MiB) each.
    expect(sizes.length).toBeGreaterThanOrEqual(4);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(MiB);
  });

  it('keeps an empty file (exists, no bytes) and files of exactly one chunk', async () => {
    const empty = newKey();
    expect(await b.storage.put(empty, Readable.from([]))).toBe(0);
    const s = await b.storage.get(empty);
    expect(s).toBeDefined();
    expect((await drain(s!)).data.length).toBe(0);
    const exact = newKey();
    const one = randomBytes(MiB);
    expect(await b.storage.put(exact, Readable.from([one]))).toBe(MiB);
    expect((await drain((await b.storage.get(exact))!)).data.equals(one)).toBe(true);
  });

  it('answers undefined for a missing file and deletes idempotently', async () => {
    expect(await b.storage.get(newKey())).toBeUndefined();
    await b.storage.delete(newKey());
    const key = newKey();
    await b.storage.put(key, Readable.from([Buffer.from('hello')]));
    await b.storage.delete(key);
    expect(await b.storage.get(key)).toBeUndefined();
    await b.storage.delete(key);
  });

  it('leaves nothing behind when the source fails midway', async () => {
    const key = newKey();
    let sent = 0;
    const failing = new Readable({
      read() {
        if (sent >= 2.5 * MiB) return void this.destroy(new Error('client went away'));
        this.push(randomBytes(256 * 1024));
        sent += 256 * 1024;
      },
    });
    await expect(b.storage.put(key, failing)).rejects.toThrow('client went away');
    expect(await b.storage.get(key)).toBeUndefined();
    if (b.store) {
      const left = await b.store.db.selectFrom('file_chunks').select('file_id').where('pending_since', 'is not', null).execute();
      expect(left).toEqual([]);
    }
  });

  it('keeps concurrent puts of different files apart', async () => {
    const files = Array.from({ length: 6 }, () => ({ key: newKey(), data: randomBytes(1.5 * MiB + Math.floor(Math.random() * 1000)) }));
    const sizes = await Promise.all(files.map((f) => b.storage.put(f.key, piecewise(f.data, 100_000))));
    expect(sizes).toEqual(files.map((f) => f.data.length));
    for (const f of files) expect((await drain((await b.storage.get(f.key))!)).data.equals(f.data)).toBe(true);
  });

  it('replaces a file on a second put; concurrent puts of one key leave one whole version', async () => {
    const key = newKey();
    await b.storage.put(key, Readable.from([Buffer.from('first version')]));
    await b.storage.put(key, Readable.from([Buffer.from('second')]));
    expect((await drain((await b.storage.get(key))!)).data.toString()).toBe('second');
    const versions = [randomBytes(2.2 * MiB), randomBytes(1.1 * MiB), randomBytes(3 * MiB)];
    await Promise.all(versions.map((v) => b.storage.put(key, piecewise(v))));
    const back = (await drain((await b.storage.get(key))!)).data;
    expect(versions.filter((v) => v.equals(back))).toHaveLength(1);
  });

  if (!name.startsWith('database')) return;

  it('writes stream: full chunks reach the database before the source ends', async () => {
    const key = newKey();
    let pulled = 0;
    let rowsSeenAt3MiB = -1;
    const source = new Readable({
      read() {
        if (pulled >= 4 * MiB) return void this.push(null);
        if (pulled === 3 * MiB) {
          // Check the rows while the upload is still running, then go on.
          void b
            .store!.db.selectFrom('file_chunks')
            .select('seq')
            .where('pending_since', 'is not', null)
            .execute()
            .then((rows) => {
              rowsSeenAt3MiB = rows.length;
              pulled += 512 * 1024;
              this.push(Buffer.alloc(512 * 1024, 1));
            });
          return;
        }
        pulled += 512 * 1024;
        this.push(Buffer.alloc(512 * 1024, 1));
      },
    });
    expect(await b.storage.put(key, source)).toBe(4 * MiB);
    expect(rowsSeenAt3MiB).toBeGreaterThanOrEqual(2);
    const rows = await b
      .store!.db.selectFrom('file_chunks')
      .select(['seq', 'pending_since'])
      .where('file_id', '=', key)
      .orderBy('seq')
      .execute();
    expect(rows.map((r) => [Number(r.seq), r.pending_since])).toEqual([
      [0, null],
      [1, null],
      [2, null],
      [3, null],
    ]);
  });

  it('reads fail when the file is deleted while being read', async () => {
    const key = newKey();
    await b.storage.put(key, piecewise(randomBytes(3 * MiB)));
    const stream = (await b.storage.get(key))!;
    const it = stream[Symbol.asyncIterator]();
    expect(((await it.next()).value as Buffer).length).toBe(MiB);
    await b.storage.delete(key);
    await expect(
      (async () => {
        for (;;) if ((await it.next()).done) return 'ended';
      })(),
    ).rejects.toThrow(/changed while it was being read/);
  });

  it("sweeps chunks of an upload abandoned by a dead writer, but not a recent one's", async () => {
    const clock = new FakeClock(Date.now());
    await insertPendingChunk(b.store!, '~upload~dead', 0, Buffer.from('x'), clock.now() - 7 * 3600_000);
    await insertPendingChunk(b.store!, '~upload~live', 0, Buffer.from('y'), clock.now() - 60_000);
    const storage = new DatabaseFileStorage(b.store!, { clock });
    await storage.put(newKey(), Readable.from([Buffer.from('z')]));
    const pending = await b.store!.db.selectFrom('file_chunks').select('file_id').where('pending_since', 'is not', null).execute();
    expect(pending.map((r) => r.file_id)).toEqual(['~upload~live']);
  });

  it('refuses keys in the temporary namespace', async () => {
    await expect(b.storage.put('~upload~x', Readable.from(['x']))).rejects.toThrow(/invalid storage key/);
  });
});

describe('fileStorageKind', () => {
  it('is database on PostgreSQL and disk on SQLite unless GATEWAY_FILE_STORAGE says otherwise', () => {
    expect(fileStorageKind('postgres', {})).toBe('database');
    expect(fileStorageKind('sqlite', {})).toBe('disk');
    expect(fileStorageKind('postgres', { GATEWAY_FILE_STORAGE: 'disk' })).toBe('disk');
    expect(fileStorageKind('sqlite', { GATEWAY_FILE_STORAGE: 'database' })).toBe('database');
    expect(() => fileStorageKind('sqlite', { GATEWAY_FILE_STORAGE: 's3' })).toThrow(/GATEWAY_FILE_STORAGE must be 'disk' or 'database'/);
  });
});
