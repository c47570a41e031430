import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from './private-files.js';

/** Format version of sealed strings (the first field). */
const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Name of the generated key file in the data directory (embedded SQLite deployments without `GATEWAY_ENCRYPTION_KEY`). */
export const ENCRYPTION_KEY_FILE = 'encryption-key';

/** A sealed value could not be opened: malformed, sealed with another key, tampered with, or for another context. */
export class SecretBoxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretBoxError';
  }
}

/**
 * Encryption at rest for secrets the gateway must read back (a pending key value, provider
 * credentials): AES-256-GCM with a random 96-bit IV per value. A sealed value is the string
 * `v1.<keyId>.<iv>.<ciphertext>.<tag>` (base64url parts); `keyId` (8 hex characters of the key's
 * SHA-256) names the key that sealed it without revealing it, so a key change is detected rather than
 * decrypting to garbage. `context` (e.g. the row id) is bound as additional authenticated data: a
 * value copied to another row does not open there.
 */
export class SecretBox {
  /** Identifies this box's key in the values it seals. */
  readonly keyId: string;

  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error(`SecretBox needs a 32-byte key, got ${key.length} bytes`);
    this.keyId = createHash('sha256').update(key).digest('hex').slice(0, 8);
  }

  /** Seals `plain` (bound to `context`, default empty). */
  encrypt(plain: string, context = ''): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(this.aad(context));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [VERSION, this.keyId, iv.toString('base64url'), body.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
  }

  /** Opens a value sealed by `encrypt` with the same key and `context`; throws `SecretBoxError` otherwise. */
  decrypt(sealed: string, context = ''): string {
    const parts = sealed.split('.');
    if (parts.length !== 5 || parts[0] !== VERSION) throw new SecretBoxError(`Not a sealed value of format ${VERSION}.`);
    const [, keyId, ivText, bodyText, tagText] = parts as [string, string, string, string, string];
    if (keyId !== this.keyId)
      throw new SecretBoxError(
        `The value was sealed with encryption key ${keyId}; this gateway's key is ${this.keyId} (GATEWAY_ENCRYPTION_KEY changed?).`,
      );
    const iv = Buffer.from(ivText, 'base64url');
    const tag = Buffer.from(tagText, 'base64url');
    if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new SecretBoxError('Malformed sealed value.');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(this.aad(context));
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(Buffer.from(bodyText, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretBoxError('The sealed value does not authenticate (tampered with, or sealed for another context).');
    }
  }

  private aad(context: string): Buffer {
    return Buffer.from(`${VERSION}.${this.keyId}.${context}`, 'utf8');
  }
}

const SEALED = /^v1\.[0-9a-f]{8}\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]{22}$/;

/**
 * Whether `text` has the shape of a value sealed by `SecretBox.encrypt` (any key): `v1`, an 8-hex key
 * id, a 12-byte IV, the ciphertext and a 16-byte tag. Tells rows written in plaintext by an older
 * gateway from sealed ones; no provider credential has this shape.
 */
export function isSealed(text: string): boolean {
  return SEALED.test(text);
}

/**
 * Reads `GATEWAY_ENCRYPTION_KEY`: 32 bytes as 64 hex characters or as base64 / base64url
 * (`openssl rand -base64 32`). Throws a message naming the variable otherwise.
 */
export function parseEncryptionKey(text: string): Buffer {
  const t = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(t)) return Buffer.from(t, 'hex');
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(t)) {
    const bytes = Buffer.from(t.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (bytes.length === 32) return bytes;
  }
  throw new Error(
    'GATEWAY_ENCRYPTION_KEY must be 32 bytes written as 64 hex characters or as base64 (generate one with `openssl rand -base64 32`).',
  );
}

/**
 * The gateway's secret box. Its key is `GATEWAY_ENCRYPTION_KEY` when set. Without it, a SQLite
 * (single-process) gateway generates a key once into `$GATEWAY_DATA_DIR/encryption-key` (mode 0600)
 * and reuses it; a PostgreSQL gateway refuses to start, because its replicas must all use one key
 * and a per-replica file would seal values the others cannot open.
 */
export function loadSecretBox(opts: { configured?: string; dataDir: string; shared: boolean }): SecretBox {
  if (opts.configured) return new SecretBox(parseEncryptionKey(opts.configured));
  if (opts.shared) {
    throw new Error(
      'GATEWAY_ENCRYPTION_KEY is required with DATABASE_URL: every replica must seal and open stored secrets with the same key (generate one with `openssl rand -base64 32`).',
    );
  }
  const file = join(opts.dataDir, ENCRYPTION_KEY_FILE);
  let existing: string | undefined;
  try {
    existing = readFileSync(file, 'utf8').trim();
  } catch {
    // absent: generated below
  }
  if (existing) {
    try {
      return new SecretBox(parseEncryptionKey(existing));
    } catch {
      throw new Error(`${file} does not hold a valid encryption key (32 bytes, base64 or hex); restore it or set GATEWAY_ENCRYPTION_KEY.`);
    }
  }
  const fresh = randomBytes(32);
  mkdirSync(opts.dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  writeFileSync(file, fresh.toString('base64') + '\n', { mode: PRIVATE_FILE_MODE });
  chmodSync(file, PRIVATE_FILE_MODE);
  return new SecretBox(fresh);
}
