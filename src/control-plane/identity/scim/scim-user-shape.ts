import type { ScimUserRecord } from '../../../infra/store/repos/scim.js';
import { invalidSyntax, invalidValue } from './scim-error.js';

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const ENTERPRISE_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

/** Core User attributes (RFC 7643 §4.1) by lower-case name; `id`, `meta`, `groups` are read-only and ignored on input. */
const USER_ATTRIBUTES = [
  'schemas',
  'id',
  'meta',
  'groups',
  'externalId',
  'userName',
  'name',
  'displayName',
  'nickName',
  'profileUrl',
  'title',
  'userType',
  'preferredLanguage',
  'locale',
  'timezone',
  'active',
  'password',
  'emails',
  'phoneNumbers',
  'ims',
  'photos',
  'addresses',
  'entitlements',
  'roles',
  'x509Certificates',
];
const CANONICAL = new Map(USER_ATTRIBUTES.map((a) => [a.toLowerCase(), a]));
const NOT_STORED = new Set(['schemas', 'id', 'meta', 'groups', 'externalId', 'userName', 'active', 'password']);

/** What a User body sets on the gateway user and its SCIM row. */
export interface UserInput {
  userName: string;
  externalId: string | null;
  active: boolean;
  email: string;
  name: string | null;
  /** Other attributes, kept and answered back (never the password). */
  attributes: Record<string, unknown>;
}

/** `active` as Okta and Entra send it: a boolean or the strings "True" / "False" (any case). */
export function readActive(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  throw invalidValue(`active must be a boolean (or "True"/"False"), not ${JSON.stringify(value)}.`);
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() ? v.trim() : undefined;
}

/**
 * Reads a User resource (POST or PUT, or a patched representation): attribute names in any case;
 * an attribute the User schema (and its enterprise extension) does not have is 400 `invalidSyntax`;
 * `userName` is required; the email is the primary (else first) of `emails`, else the `userName`
 * when it is an address.
 */
export function readUser(body: unknown): UserInput {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidSyntax('A User body is a JSON object.');
  const attrs: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    if (key.toLowerCase() === ENTERPRISE_SCHEMA.toLowerCase()) {
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        throw invalidValue(`${ENTERPRISE_SCHEMA} must be an object.`);
      attrs[ENTERPRISE_SCHEMA] = value;
      continue;
    }
    const name = CANONICAL.get(key.toLowerCase());
    if (!name) throw invalidSyntax(`Unknown attribute '${key}' for a User.`);
    attrs[name] = value;
  }
  const userName = str(attrs.userName);
  if (!userName || userName.length > 320) throw invalidValue('userName is required (a non-empty string of at most 320 characters).');
  if (attrs.externalId !== undefined && attrs.externalId !== null && typeof attrs.externalId !== 'string')
    throw invalidValue('externalId must be a string.');
  if (attrs.emails !== undefined && !Array.isArray(attrs.emails)) throw invalidValue('emails must be an array.');
  if (attrs.name !== undefined && (typeof attrs.name !== 'object' || attrs.name === null || Array.isArray(attrs.name)))
    throw invalidValue('name must be an object.');
  const emails = (attrs.emails as Array<Record<string, unknown>> | undefined) ?? [];
  const email =
    str(emails.find((e) => e?.primary === true || e?.primary === 'True' || e?.primary === 'true')?.value) ??
    str(emails[0]?.value) ??
    (userName.includes('@') ? userName : undefined);
  if (!email || !/^[^\s@]+@[^\s@]+$/.test(email) || email.length > 320)
    throw invalidValue('An email address is required: in emails, or as a userName that is an address.');
  const n = (attrs.name as Record<string, unknown> | undefined) ?? {};
  const display = str(attrs.displayName) ?? str(n.formatted) ?? ([str(n.givenName), str(n.familyName)].filter(Boolean).join(' ') || null);
  const attributes: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(attrs)) if (!NOT_STORED.has(k)) attributes[k] = v;
  return {
    userName,
    externalId: (attrs.externalId as string | undefined) ?? null,
    active: readActive(attrs.active),
    email,
    name: display,
    attributes,
  };
}

/** The User resource of a SCIM user, with its groups. */
export function presentUser(u: ScimUserRecord, groups: ReadonlyArray<{ group_id: string; display_name: string }>, base: string) {
  const a = u.attributes;
  return {
    schemas: a[ENTERPRISE_SCHEMA] !== undefined ? [USER_SCHEMA, ENTERPRISE_SCHEMA] : [USER_SCHEMA],
    id: u.id,
    ...(u.external_id !== null ? { externalId: u.external_id } : {}),
    userName: u.user_name,
    ...a,
    ...(u.name !== null && a.displayName === undefined ? { displayName: u.name } : {}),
    emails: a.emails ?? [{ value: u.email, type: 'work', primary: true }],
    active: u.status === 'active',
    groups: groups.map((g) => ({ value: g.group_id, display: g.display_name, $ref: `${base}/Groups/${g.group_id}` })),
    meta: {
      resourceType: 'User',
      created: new Date(u.created_at).toISOString(),
      lastModified: new Date(u.updated_at).toISOString(),
      location: `${base}/Users/${u.id}`,
    },
  };
}
