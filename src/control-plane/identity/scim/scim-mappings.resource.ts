import { Type } from 'typebox';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { uuid } from '../../../foundation/lib/ids.js';
import { WORKSPACE_ROLES, type WorkspaceRole } from '../../../kernel/roles.js';
import { API_KEYS_SECTION } from '../../../runtime/core-sections.js';
import { SESSIONS_SECTION } from '../../../runtime/sessions-section.js';
import {
  allScimMappings,
  deleteScimMapping,
  getScimGroup,
  getScimMapping,
  insertScimGroup,
  insertScimMapping,
  listScimMappings,
  membersOfGroups,
  scimGroupByName,
  type ScimMappingRecord,
} from '../../../infra/store/repos/scim.js';
import { defineResource } from '../../resource/define-resource.js';
import { requireOrganisationAdmin } from '../../../identity/authorize.js';
import { iso } from '../../../identity/paging.js';
import { syncMemberships } from './sync-memberships.js';

const CreateMapping = Type.Object(
  {
    workspace_id: Type.String({ minLength: 1 }),
    role: Type.String({ minLength: 1, maxLength: 32, description: 'admin, manager or member, in any case' }),
    scim_group_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    scim_group_name: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  },
  { additionalProperties: false },
);
const MappingAnswer = Type.Object({
  id: Type.String(),
  object: Type.Literal('scim_workspace_mapping'),
  workspace_id: Type.String(),
  role: Type.String(),
  scim_group_id: Type.String(),
  scim_group_name: Type.String(),
  created_at: Type.String(),
});

function present(m: ScimMappingRecord) {
  return {
    id: m.id,
    object: 'scim_workspace_mapping' as const,
    workspace_id: m.workspace_id,
    role: m.role,
    scim_group_id: m.group_id,
    scim_group_name: m.group_name,
    created_at: iso(m.created_at)!,
  };
}

/**
 * `/v1/scim/workspaces` (control-plane.md §5): the members of a mapped SCIM group are members of the
 * workspace with the mapping's role (several mappings: the highest role); leaving the last granting
 * group removes the membership. Name a group by `scim_group_id` or `scim_group_name` (exactly one; a
 * name that does not exist creates the group). A group has one role: mapping it to another workspace
 * with a different role is 409. Creating or deleting a mapping syncs its group's members at once, in
 * the write's transaction. Organisation owners and admins only.
 */
export const scimMappingsResource = defineResource({
  name: 'scim_workspace_mapping',
  paths: ['/v1/scim/workspaces'],
  tag: 'scim',
  noun: { one: 'a SCIM workspace mapping', many: 'SCIM workspace mappings' },
  permissions: { read: 'organisation.read', write: 'organisation.write' },
  runtimeSections: [API_KEYS_SECTION, SESSIONS_SECTION],
  schemas: { create: CreateMapping, listQuery: Type.Object({}), answer: MappingAnswer },
  removal: 'delete',
  unique: { param: 'workspace_id', message: 'This group is already mapped to this workspace.' },
  repo: {
    get: (db, scope, id) => getScimMapping(db, scope.organisationId, scope.workspaceIds, id),
    list: (db, scope, _query, page) => listScimMappings(db, scope.organisationId, scope.workspaceIds, page),
    async remove(db, scope, m, now) {
      await deleteScimMapping(db, scope.organisationId, m.id);
      const members = (await membersOfGroups(db, [m.group_id])).map((x) => x.user_id);
      await syncMemberships(db, { organisationId: scope.organisationId, now }, members, [m.workspace_id]);
    },
  },
  idOf: (m) => m.id,
  workspaceOf: (m) => m.workspace_id,
  present,
  beforeList: (ctx) => requireOrganisationAdmin(ctx.principal, 'Listing SCIM workspace mappings'),
  beforeRemove: (ctx) => requireOrganisationAdmin(ctx.principal, 'Deleting a SCIM workspace mapping'),
  async create(ctx, body) {
    requireOrganisationAdmin(ctx.principal, 'Mapping a SCIM group to a workspace');
    const role = body.role.toLowerCase() as WorkspaceRole;
    if (!WORKSPACE_ROLES.includes(role))
      throw new GatewayError('invalid_request', `role must be one of ${WORKSPACE_ROLES.join(', ')} (any case).`, { param: 'role' });
    if ((body.scim_group_id === undefined) === (body.scim_group_name === undefined)) {
      throw new GatewayError('invalid_request', 'Send exactly one of scim_group_id and scim_group_name.', {
        param: body.scim_group_id === undefined ? 'scim_group_id' : 'scim_group_name',
      });
    }
    const organisationId = ctx.principal.organisationId;
    let group =
      body.scim_group_id !== undefined
        ? await getScimGroup(ctx.db, organisationId, body.scim_group_id)
        : await scimGroupByName(ctx.db, organisationId, body.scim_group_name!);
    if (!group && body.scim_group_id !== undefined)
      throw new GatewayError('not_found', `Unknown SCIM group '${body.scim_group_id}'.`, { param: 'scim_group_id' });
    if (!group) {
      group = {
        id: uuid(),
        organisation_id: organisationId,
        display_name: body.scim_group_name!.trim(),
        external_id: null,
        created_at: ctx.now,
        updated_at: ctx.now,
      };
      await insertScimGroup(ctx.db, group);
    }
    const other = (await allScimMappings(ctx.db, organisationId)).find((m) => m.group_id === group.id && m.role !== role);
    if (other)
      throw new GatewayError(
        'conflict',
        `SCIM group '${group.display_name}' is mapped with the role '${other.role}' already (mapping ${other.id}); a group has one role.`,
        { param: 'role' },
      );
    const id = uuid();
    const workspaceId = ctx.scope.workspaceIds[0]!;
    await insertScimMapping(ctx.db, {
      id,
      organisation_id: organisationId,
      workspace_id: workspaceId,
      group_id: group.id,
      role,
      created_at: ctx.now,
    });
    const members = (await membersOfGroups(ctx.db, [group.id])).map((m) => m.user_id);
    const keys = await syncMemberships(
      ctx.db,
      { organisationId, now: ctx.now, secrets: ctx.deps.secrets, prefix: ctx.deps.settings.apiKeyPrefix },
      members,
    );
    const record = (await getScimMapping(ctx.db, organisationId, [workspaceId], id))!;
    return {
      record,
      details: {
        scim_group_id: group.id,
        scim_group_name: group.display_name,
        role,
        members: members.length,
        ...(keys.length ? { auto_api_keys: keys } : {}),
      },
    };
  },
});
