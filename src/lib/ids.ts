import { randomBytes, randomUUID } from 'node:crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** A random id of `length` alphanumerics. */
export function randomId(length = 24): string {
  const bytes = randomBytes(length);
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[bytes[i]! % ALPHABET.length];
  return out;
}

/** A prefixed id such as `chatcmpl-…`, `file-…`, `batch_…` (decisions.md, "Identifiers"). */
export function prefixedId(prefix: string, length = 24): string {
  return prefix + randomId(length);
}

/** A UUID v4 (policies, workspaces, keys). */
export function uuid(): string {
  return randomUUID();
}
