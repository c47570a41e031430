import { isSealed, type SecretBox } from './secret-box.js';

/**
 * The parts of a member name that make its value a credential (compared without case): the one list
 * behind provider settings, virtual-key and integration configs, and the members of stored routing
 * configs (`api_key`, `Authorization`, `cloud1_secret_access_key`, `cloud2_service_account_json` …).
 */
export const CREDENTIAL_NAME_PARTS: readonly string[] = [
  'secret',
  'token',
  'password',
  'service_account_json',
  'private_key',
  'api_key',
  'api-key',
  'apikey',
  'authorization',
];

/** A settings key whose value is a credential: sealed at rest and shown only by a hint. */
const CREDENTIAL_KEY = new RegExp(`(${CREDENTIAL_NAME_PARTS.join('|')})`, 'i');

/** Whether a settings key (`aws_secret_access_key`, `vertex_service_account_json`, `api_key` …) holds a credential. */
export function isCredentialKey(key: string): boolean {
  return CREDENTIAL_KEY.test(key);
}

/** The masked hint of a credential: its first three and last four characters (`sk-…abcd`), or `…` for short values. */
export function credentialHint(value: string): string {
  return value.length >= 12 ? `${value.slice(0, 3)}…${value.slice(-4)}` : '…';
}

/** A credential value as stored inside a settings object: sealed, with its hint for answers. */
export interface SealedValue {
  sealed: string;
  hint: string;
}

/** `v` when it is a credential stored sealed (`{sealed, hint}`, nothing else), else undefined. */
export function asSealed(v: unknown): SealedValue | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  return Object.keys(o).length === 2 && typeof o.sealed === 'string' && typeof o.hint === 'string' && isSealed(o.sealed)
    ? (o as unknown as SealedValue)
    : undefined;
}

const contextOf = (context: string, key: string) => `${context}:${key}`;

/** One credential value sealed as JSON (so it opens with its type) bound to `context`, beside its hint. */
export function sealCredential(box: SecretBox, context: string, value: unknown): SealedValue {
  return {
    sealed: box.encrypt(JSON.stringify(value), context),
    hint: credentialHint(typeof value === 'string' ? value : JSON.stringify(value)),
  };
}

/** Opens a value sealed by {@link sealCredential} under `context`; throws when it does not open. */
export function openCredential(box: SecretBox, context: string, value: SealedValue): unknown {
  return JSON.parse(box.decrypt(value.sealed, context));
}

/**
 * The settings as stored: each credential value (by key name) sealed with the box, bound to
 * `<context>:<key>`, beside its hint; other values as given; values already sealed left alone.
 * Idempotent, so it also serves to seal rows written before credentials were sealed. `isCredential`
 * picks the keys to seal when it is not their name that says so (every header of a captured request).
 */
export function sealCredentialSettings(
  box: SecretBox,
  context: string,
  settings: Record<string, unknown>,
  isCredential: (key: string) => boolean = isCredentialKey,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(settings)) {
    if (!isCredential(k) || asSealed(v) || v === null || v === undefined || v === '') out[k] = v;
    else {
      // Sealed as JSON, so the value opens with its type (a string, or an object such as a service account).
      out[k] = sealCredential(box, contextOf(context, k), v);
    }
  }
  return out;
}

/** Whether any credential value of the settings (by key name, or as `isCredential` says) is still in plaintext. */
export function hasPlainCredentials(settings: Record<string, unknown>, isCredential: (key: string) => boolean = isCredentialKey): boolean {
  return Object.entries(settings).some(([k, v]) => isCredential(k) && !asSealed(v) && v !== null && v !== undefined && v !== '');
}

/** The settings as answers show them: each sealed value replaced by its hint. */
export function maskCredentialSettings(settings: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(settings)) out[k] = asSealed(v)?.hint ?? v;
  return out;
}

/**
 * The settings in plaintext, for the runtime (opened once when a section loads, never per request).
 * Throws when a sealed value does not open (another key, or tampered with).
 */
export function openCredentialSettings(box: SecretBox, context: string, settings: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(settings)) {
    const s = asSealed(v);
    if (!s) out[k] = v;
    else out[k] = openCredential(box, contextOf(context, k), s);
  }
  return out;
}
