import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { ENCRYPTION_KEY_FILE, SecretBox, SecretBoxError, loadSecretBox, parseEncryptionKey } from './secret-box.js';

const box = () => new SecretBox(randomBytes(32));

describe('SecretBox', () => {
  it('round-trips strings (empty and unicode too) and never repeats a sealed value', () => {
    const b = box();
    for (const plain of ['', 'sk-abc', 'ünïcödé ✓ '.repeat(50)]) expect(b.decrypt(b.encrypt(plain))).toBe(plain);
    const a1 = b.encrypt('same');
    const a2 = b.encrypt('same');
    expect(a1).not.toBe(a2);
    expect(a1).not.toContain('same');
  });

  it('the sealed format is versioned and names its key id', () => {
    const b = box();
    const parts = b.encrypt('x').split('.');
    expect(parts).toHaveLength(5);
    expect(parts[0]).toBe('v1');
    expect(parts[1]).toBe(b.keyId);
    expect(b.keyId).toMatch(/^[0-9a-f]{8}$/);
  });

  it('a tampered value does not open', () => {
    const b = box();
    const sealed = b.encrypt('the secret value');
    const parts = sealed.split('.');
    for (const i of [2, 3, 4]) {
      const bytes = Buffer.from(parts[i]!, 'base64url');
      bytes[0] ^= 1;
      const tampered = [...parts];
      tampered[i] = bytes.toString('base64url');
      expect(() => b.decrypt(tampered.join('.'))).toThrow(SecretBoxError);
    }
  });

  it('another key, another context, another version or garbage is refused', () => {
    const b = box();
    const sealed = b.encrypt('v', 'row-1');
    expect(b.decrypt(sealed, 'row-1')).toBe('v');
    expect(() => b.decrypt(sealed, 'row-2')).toThrow(SecretBoxError);
    expect(() => box().decrypt(sealed, 'row-1')).toThrow(/sealed with encryption key/);
    expect(() => b.decrypt(sealed.replace(/^v1/, 'v2'), 'row-1')).toThrow(SecretBoxError);
    expect(() => b.decrypt('not sealed')).toThrow(SecretBoxError);
    expect(() => b.decrypt('v1.' + b.keyId + '.a.b.c')).toThrow(SecretBoxError);
  });
});

describe('GATEWAY_ENCRYPTION_KEY', () => {
  it('accepts 32 bytes as hex, base64 or base64url; refuses anything else with a clear message', () => {
    const raw = randomBytes(32);
    expect(parseEncryptionKey(raw.toString('hex'))).toEqual(raw);
    expect(parseEncryptionKey(raw.toString('base64'))).toEqual(raw);
    expect(parseEncryptionKey(raw.toString('base64url'))).toEqual(raw);
    for (const bad of ['short', randomBytes(16).toString('base64'), randomBytes(31).toString('hex'), 'zz'.repeat(32)]) {
      expect(() => parseEncryptionKey(bad)).toThrow(/GATEWAY_ENCRYPTION_KEY must be 32 bytes/);
    }
  });

  it('an env key seals values that a box with the same key opens (replicas agree)', () => {
    const key = randomBytes(32).toString('base64');
    const a = loadSecretBox({ configured: key, dataDir: '/nonexistent', shared: true });
    const b = loadSecretBox({ configured: key, dataDir: '/nonexistent', shared: true });
    expect(b.decrypt(a.encrypt('shared'))).toBe('shared');
  });

  it('without a key: a shared (PostgreSQL) store refuses to start; SQLite generates one file (0600) and reuses it', () => {
    expect(() => loadSecretBox({ dataDir: '/nonexistent', shared: true })).toThrow(/GATEWAY_ENCRYPTION_KEY is required/);
    const dir = mkdtempSync(join(tmpdir(), 'gw-box-'));
    try {
      const first = loadSecretBox({ dataDir: dir, shared: false });
      const file = join(dir, ENCRYPTION_KEY_FILE);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const sealed = first.encrypt('kept');
      const again = loadSecretBox({ dataDir: dir, shared: false });
      expect(again.keyId).toBe(first.keyId);
      expect(again.decrypt(sealed)).toBe('kept');
      expect(readFileSync(file, 'utf8').trim()).toHaveLength(44);
      writeFileSync(file, 'garbage\n');
      expect(() => loadSecretBox({ dataDir: dir, shared: false })).toThrow(/does not hold a valid encryption key/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
