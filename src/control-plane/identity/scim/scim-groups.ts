import type { Kysely } from 'kysely';
import type { Database } from '../../../infra/store/schema.js';
import { uuid } from '../../../foundation/lib/ids.js';
import {
  addGroupMembers,
  allScimMappings,
  deleteScimGroup,
  getScimGroup,
  insertScimGroup,
  knownScimUserIds,
  listScimGroups,
  membersOfGroups,
  removeGroupMembers,
  updateScimGroup,
  type ScimGroupRecord,
} from '../../../infra/store/repos/scim.js';
import { invalidValue, notFound } from './scim-error.js';
import { excludesMembers, listResponse, readFilter, readPage } from './scim-query.js';
import { applyPatch } from './scim-patch-ops.js';
import { presentGroup, readGroup, type GroupInput } from './scim-group-shape.js';
import { scimAudit, scimWrite, type ScimCall } from './scim-call.js';
import { syncMemberships } from './sync-memberships.js';

async function load(db: Kysely<Database>, call: ScimCall, id: string): Promise<ScimGroupRecord> {
  const g = await getScimGroup(db, call.organisationId, id);
  if (!g) throw notFound('Group', id);
  return g;
}

async function present(db: Kysely<Database>, call: ScimCall, g: ScimGroupRecord, withMembers = true) {
  return presentGroup(g, withMembers ? await membersOfGroups(db, [g.id]) : undefined, call.base);
}

/** `GET /Groups` with `filter`, `startIndex`, `count`, `excludedAttributes=members`. */
export async function listGroups(call: ScimCall, query: Record<string, unknown>) {
  const filter = readFilter(query.filter);
  const page = readPage(query);
  const db = call.deps.store.db;
  const { rows, total } = await listScimGroups(db, call.organisationId, filter, page);
  const members = excludesMembers(query)
    ? undefined
    : await membersOfGroups(
        db,
        rows.map((g) => g.id),
      );
  return listResponse(
    rows.map((g) =>
      presentGroup(
        g,
        members?.filter((m) => m.group_id === g.id),
        call.base,
      ),
    ),
    total,
    page.startIndex,
  );
}

/** `GET /Groups/{id}`. */
export async function readGroupResource(call: ScimCall, id: string, query: Record<string, unknown>) {
  const db = call.deps.store.db;
  return present(db, call, await load(db, call, id), !excludesMembers(query));
}

/**
 * Sets a group's name and (when given) its members, then syncs the workspace memberships of the
 * members who joined or left. A member id that is not a provisioned user is 400 `invalidValue`.
 */
async function apply(db: Kysely<Database>, call: ScimCall, g: ScimGroupRecord, input: GroupInput, verb: string): Promise<void> {
  await updateScimGroup(db, call.organisationId, g.id, { display_name: input.displayName, external_id: input.externalId }, call.now);
  let added: string[] = [];
  let removed: string[] = [];
  if (input.members) {
    const before = new Set((await membersOfGroups(db, [g.id])).map((m) => m.user_id));
    const after = new Set(input.members);
    added = [...after].filter((id) => !before.has(id));
    removed = [...before].filter((id) => !after.has(id));
    const known = await knownScimUserIds(db, call.organisationId, added);
    const unknown = added.find((id) => !known.has(id));
    if (unknown !== undefined) throw invalidValue(`members: '${unknown}' is not a user provisioned by SCIM.`);
    await addGroupMembers(db, g.id, added);
    await removeGroupMembers(db, g.id, removed);
    await syncMemberships(db, call, [...added, ...removed]);
  }
  await scimAudit(db, call, `scim_group.${verb}`, 'scim_group', g.id, {
    display_name: input.displayName,
    added_members: added,
    removed_members: removed,
  });
}

/** `POST /Groups`: a displayName already used is 409 `uniqueness`. */
export async function createGroup(call: ScimCall, body: unknown) {
  const input = readGroup(body);
  return scimWrite(call, async (db) => {
    const g: ScimGroupRecord = {
      id: uuid(),
      organisation_id: call.organisationId,
      display_name: input.displayName,
      external_id: input.externalId,
      created_at: call.now,
      updated_at: call.now,
    };
    await insertScimGroup(db, g);
    await apply(db, call, g, input, 'create');
    return present(db, call, await load(db, call, g.id));
  });
}

/** `PUT /Groups/{id}`: replaces the whole group (no `members` means none). */
export async function replaceGroup(call: ScimCall, id: string, body: unknown) {
  const input = readGroup(body);
  return scimWrite(call, async (db) => {
    const g = await load(db, call, id);
    await apply(db, call, g, { ...input, members: input.members ?? [] }, 'update');
    return present(db, call, await load(db, call, id));
  });
}

/** `PATCH /Groups/{id}`: member adds and removes (by value list or `members[value eq "…"]` path), renames. */
export async function patchGroup(call: ScimCall, id: string, body: unknown) {
  return scimWrite(call, async (db) => {
    const g = await load(db, call, id);
    // Members as bare `{value}` objects: Entra removes members by a value list that names only `value`.
    const current = await present(db, call, g);
    const patched = await applyPatch({ ...current, members: (current.members ?? []).map((m) => ({ value: m.value })) }, body);
    const input = readGroup(patched);
    await apply(db, call, g, { ...input, members: input.members ?? [] }, 'update');
    return present(db, call, await load(db, call, id));
  });
}

/** `DELETE /Groups/{id}`: the group, its mappings and the workspace memberships they granted go. */
export async function deleteGroupResource(call: ScimCall, id: string): Promise<void> {
  await scimWrite(call, async (db) => {
    const g = await load(db, call, id);
    const members = (await membersOfGroups(db, [g.id])).map((m) => m.user_id);
    const workspaces = (await allScimMappings(db, call.organisationId)).filter((m) => m.group_id === g.id).map((m) => m.workspace_id);
    await deleteScimGroup(db, call.organisationId, g.id);
    await syncMemberships(db, call, members, workspaces);
    await scimAudit(db, call, 'scim_group.delete', 'scim_group', g.id, { display_name: g.display_name });
  });
}
