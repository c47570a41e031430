import { randomId } from '../../../foundation/lib/ids.js';

/** Generates a new key value: `API_KEY_PREFIX` (when set) followed by 48 random characters. */
export function newKeyValue(prefix: string): string {
  return `${prefix}${randomId(48)}`;
}

/** The hint shown in lists: the prefix and the next four characters (never enough to use the key). */
export function keyHint(value: string, prefix: string): string {
  return value.slice(0, Math.min(value.length, prefix.length + 4));
}
