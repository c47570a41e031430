import { randomId } from '../../../foundation/lib/ids.js';

/** Generates a new key value: `API_KEY_PREFIX` (default `gw_`; may be empty) followed by 48 random letters and digits. */
export function newKeyValue(prefix: string): string {
  return `${prefix}${randomId(48)}`;
}

/** The hint shown in lists: the prefix and the next four characters (never enough to use the key). */
export function keyHint(value: string, prefix: string): string {
  return value.slice(0, Math.min(value.length, prefix.length + 4));
}
