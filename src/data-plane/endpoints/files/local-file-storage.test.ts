import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalFileStorage } from './local-file-storage.js';

const dir = mkdtempSync(join(tmpdir(), 'gw-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('LocalFileStorage', () => {
  const storage = new LocalFileStorage(join(dir, 'files'));

  it('streams content in, counts bytes, streams it out and deletes it', async () => {
    const bytes = await storage.put('file-gwa', Readable.from([Buffer.from('ab'), Buffer.from('cd')]));
    expect(bytes).toBe(4);
    expect(await text((await storage.get('file-gwa'))!)).toBe('abcd');
    await storage.delete('file-gwa');
    expect(await storage.get('file-gwa')).toBeUndefined();
    await storage.delete('file-gwa');
  });

  it('leaves nothing behind when the source fails midway', async () => {
    const failing = new Readable({
      read() {
        this.push('part');
        this.destroy(new Error('client went away'));
      },
    });
    await expect(storage.put('file-gwb', failing)).rejects.toThrow('client went away');
    expect(await storage.get('file-gwb')).toBeUndefined();
    expect(readdirSync(join(dir, 'files')).filter((f) => f.includes('file-gwb'))).toEqual([]);
  });

  it('refuses keys that could escape its directory', async () => {
    await expect(storage.put('../x', Readable.from(['x']))).rejects.toThrow(/invalid storage key/);
  });
});
