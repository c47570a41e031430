import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { randomId } from '../../../foundation/lib/ids.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../../../foundation/lib/private-files.js';
import type { FileStorage } from './file-storage.js';

const SAFE_KEY = /^[A-Za-z0-9_.-]{1,128}$/;

/**
 * File storage on local disk under one directory (`$GATEWAY_DATA_DIR/files` by default). Writes go to a
 * temporary name and are renamed into place once complete, so a reader never sees a partial file.
 * Directories are created 0700 and files 0600 (owner only).
 */
export class LocalFileStorage implements FileStorage {
  constructor(private readonly dir: string) {}

  private path(key: string): string {
    if (!SAFE_KEY.test(key)) throw new Error(`invalid storage key '${key}'`);
    return join(this.dir, key);
  }

  async put(key: string, body: Readable): Promise<number> {
    const final = this.path(key);
    await mkdir(this.dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    const tmp = join(this.dir, `.${key}.${randomId(8)}.part`);
    let bytes = 0;
    const count = async function* (source: AsyncIterable<Buffer>) {
      for await (const chunk of source) {
        bytes += chunk.length;
        yield chunk;
      }
    };
    const out = createWriteStream(tmp, { flags: 'wx', mode: PRIVATE_FILE_MODE });
    try {
      await pipeline(body, count, out);
      await rename(tmp, final);
    } catch (err) {
      // A source that fails early can reject the pipeline before the file is even open: wait until the
      // write stream closed, or the file would appear after it was removed.
      if (!out.closed) await new Promise<void>((resolve) => out.once('close', () => resolve()));
      await rm(tmp, { force: true });
      throw err;
    }
    return bytes;
  }

  async get(key: string): Promise<Readable | undefined> {
    const p = this.path(key);
    try {
      await stat(p);
    } catch {
      return undefined;
    }
    return createReadStream(p);
  }

  async delete(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
  }
}
