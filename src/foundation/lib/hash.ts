import { createHash } from 'node:crypto';

/** Hex SHA-256 of a string or bytes. */
export function sha256Hex(input: string | Uint8Array): string {
  return createHash('sha256').update(input).digest('hex');
}
