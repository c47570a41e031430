import type { ScimGroupRecord } from '../../../infra/store/repos/scim.js';
import { invalidSyntax, invalidValue } from './scim-error.js';

export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const GROUP_ATTRIBUTES = new Map(['schemas', 'id', 'meta', 'externalId', 'displayName', 'members'].map((a) => [a.toLowerCase(), a]));

/** What a Group body sets. */
export interface GroupInput {
  displayName: string;
  externalId: string | null;
  /** Member user ids; undefined when the body does not name `members` (a POST without members). */
  members?: string[];
}

/** Reads a Group resource (POST, PUT or a patched representation); unknown attributes are 400 `invalidSyntax`. */
export function readGroup(body: unknown): GroupInput {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidSyntax('A Group body is a JSON object.');
  const attrs: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    const name = GROUP_ATTRIBUTES.get(key.toLowerCase());
    if (!name) throw invalidSyntax(`Unknown attribute '${key}' for a Group.`);
    attrs[name] = value;
  }
  const displayName = typeof attrs.displayName === 'string' ? attrs.displayName.trim() : '';
  if (!displayName || displayName.length > 256)
    throw invalidValue('displayName is required (a non-empty string of at most 256 characters).');
  if (attrs.externalId !== undefined && attrs.externalId !== null && typeof attrs.externalId !== 'string')
    throw invalidValue('externalId must be a string.');
  let members: string[] | undefined;
  if (attrs.members !== undefined && attrs.members !== null) {
    if (!Array.isArray(attrs.members)) throw invalidValue('members must be an array.');
    members = attrs.members.map((m, i) => {
      const value = typeof m === 'object' && m !== null ? (m as Record<string, unknown>).value : undefined;
      if (typeof value !== 'string' || !value) throw invalidValue(`members[${i}].value must be a user id.`);
      return value;
    });
    members = [...new Set(members)];
  }
  return { displayName, externalId: (attrs.externalId as string | undefined) ?? null, ...(members ? { members } : {}) };
}

/** The Group resource (members omitted when the query excludes them). */
export function presentGroup(g: ScimGroupRecord, members: ReadonlyArray<{ user_id: string; email: string }> | undefined, base: string) {
  return {
    schemas: [GROUP_SCHEMA],
    id: g.id,
    ...(g.external_id !== null ? { externalId: g.external_id } : {}),
    displayName: g.display_name,
    ...(members ? { members: members.map((m) => ({ value: m.user_id, display: m.email, $ref: `${base}/Users/${m.user_id}` })) } : {}),
    meta: {
      resourceType: 'Group',
      created: new Date(g.created_at).toISOString(),
      lastModified: new Date(g.updated_at).toISOString(),
      location: `${base}/Groups/${g.id}`,
    },
  };
}
