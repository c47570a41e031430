import type { SecretBox } from './secret-box.js';
import { credentialHint } from './credential-settings.js';

/** Values sealed together: one ciphertext ('' when there are none) and each value's masked hint by name. */
export interface SealedValues {
  sealed: string;
  hints: Record<string, string>;
}

/** The context header values of a row are sealed under: `<row id>:headers`. */
export const headersContext = (id: string): string => `${id}:headers`;

/**
 * Seals named values together, as one JSON object, bound to `context` (`<id>:headers`,
 * `<id>:configurations`); their hints are what answers show (`Bea…cdef`, see {@link credentialHint}).
 * No values seal to ''.
 */
export function sealValues(box: SecretBox, context: string, values: Record<string, unknown>): SealedValues {
  const names = Object.keys(values);
  if (names.length === 0) return { sealed: '', hints: {} };
  const hints = Object.fromEntries(
    names.map((n) => [n, credentialHint(typeof values[n] === 'string' ? (values[n] as string) : JSON.stringify(values[n]))]),
  );
  return { sealed: box.encrypt(JSON.stringify(values), context), hints };
}

/** Opens values sealed by {@link sealValues} ('' opens to {}); throws when they do not open (another key, tampered with). */
export function openValues<T = unknown>(box: SecretBox, context: string, sealed: string): Record<string, T> {
  return sealed === '' ? {} : (JSON.parse(box.decrypt(sealed, context)) as Record<string, T>);
}

/**
 * Seals a row's upstream header values (MCP integrations, agent servers) under `<id>:headers`, their
 * hints by header name. `lowerCase` stores the names in lower case (agent servers do).
 */
export function sealHeaders(box: SecretBox, id: string, headers: Record<string, string>, opts: { lowerCase?: boolean } = {}): SealedValues {
  const named = opts.lowerCase ? Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])) : headers;
  return sealValues(box, headersContext(id), named);
}

/** Header values opened per loaded row object (a reload brings new objects, so stale entries go with the old snapshot). */
const opened = new WeakMap<object, Readonly<Record<string, string>>>();

/**
 * A row's header values in plaintext, opened from `sealed` once per loaded `row` object (the request
 * path then does no decryption). Never log or answer them.
 */
export function openHeaders(box: SecretBox, row: object, id: string, sealed: string): Readonly<Record<string, string>> {
  if (sealed === '') return {};
  let headers = opened.get(row);
  if (!headers) {
    headers = openValues<string>(box, headersContext(id), sealed);
    opened.set(row, headers);
  }
  return headers;
}

/**
 * `base` with `over` applied, header names compared without case: a name of `over` replaces any
 * spelling of it in `base`.
 */
export function overrideHeaders(base: Readonly<Record<string, string>>, over: Readonly<Record<string, string>>): Record<string, string> {
  const replaced = new Set(Object.keys(over).map((n) => n.toLowerCase()));
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) if (!replaced.has(k.toLowerCase())) out[k] = v;
  return Object.assign(out, over);
}
