import type { Readable } from 'node:stream';

/**
 * Where the gateway keeps the content of the files it stores itself (uploads for providers without a
 * Files API, batch output and error files). Implemented on local disk (`LocalFileStorage`) and in the
 * database (`DatabaseFileStorage`, shared by replicas on PostgreSQL); both pass
 * test/conformance/file-storage.test.ts. An S3-compatible object store would implement the same three
 * calls (PutObject with a streamed body, GetObject, DeleteObject).
 */
export interface FileStorage {
  /** Streams `body` into `key`; resolves with the byte count once it is durable. Rejects (and leaves nothing) on failure. */
  put(key: string, body: Readable): Promise<number>;
  /** A stream of the content of `key`; undefined when it does not exist. */
  get(key: string): Promise<Readable | undefined>;
  /** Removes `key`; no error when it is already gone. */
  delete(key: string): Promise<void>;
}
