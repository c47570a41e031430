import { Type } from 'typebox';
import { sha256Hex } from '../../../foundation/lib/hash.js';
import { randomId, uuid } from '../../../foundation/lib/ids.js';
import { getScimToken, insertScimToken, listScimTokens, revokeScimToken, type ScimTokenRecord } from '../../../infra/store/repos/scim.js';
import { defineResource } from '../../resource/define-resource.js';
import { requireOrganisationAdmin } from '../../../identity/authorize.js';
import { iso } from '../../../identity/paging.js';

const TokenAnswer = Type.Object({
  id: Type.String(),
  object: Type.Literal('scim_token'),
  token_hint: Type.String(),
  created_at: Type.String(),
});
const CreatedToken = Type.Object({ ...TokenAnswer.properties, token: Type.String({ description: 'The token, shown once.' }) });

function present(t: ScimTokenRecord) {
  return { id: t.id, object: 'scim_token' as const, token_hint: t.token_hint, created_at: iso(t.created_at)! };
}

/**
 * `/v1/scim/tokens` (control-plane.md §5): bearer tokens of the SCIM API. `POST` (organisation owner
 * or admin) answers the token once; only its SHA-256 and a masked hint are stored. `GET` lists the
 * live ones (hints only); `DELETE` revokes one, refused from the next SCIM request on.
 */
export const scimTokensResource = defineResource({
  name: 'scim_token',
  paths: ['/v1/scim/tokens'],
  tag: 'scim',
  noun: { one: 'a SCIM token', many: 'SCIM tokens' },
  permissions: { read: 'organisation.read', write: 'organisation.write' },
  runtimeSections: [],
  schemas: {
    create: Type.Optional(Type.Object({}, { additionalProperties: false })),
    listQuery: Type.Object({}),
    answer: TokenAnswer,
    created: CreatedToken,
  },
  removal: 'delete',
  repo: {
    get: (db, scope, id) => (scope.organisationWide ? getScimToken(db, scope.organisationId, id) : Promise.resolve(undefined)),
    list: (db, scope, _query, page) =>
      scope.organisationWide ? listScimTokens(db, scope.organisationId, page) : Promise.resolve({ rows: [], total: 0 }),
    remove: (db, scope, t, now) => revokeScimToken(db, scope.organisationId, t.id, now),
  },
  idOf: (t) => t.id,
  workspaceOf: () => null,
  present,
  beforeList: (ctx) => requireOrganisationAdmin(ctx.principal, 'Listing SCIM tokens'),
  beforeRemove: (ctx) => requireOrganisationAdmin(ctx.principal, 'Revoking a SCIM token'),
  async create(ctx) {
    requireOrganisationAdmin(ctx.principal, 'Creating a SCIM token');
    const token = `scim_${randomId(40)}`;
    const record: ScimTokenRecord = {
      id: uuid(),
      organisation_id: ctx.principal.organisationId,
      token_hash: sha256Hex(token),
      token_hint: `scim_…${token.slice(-4)}`,
      created_at: ctx.now,
      revoked_at: null,
    };
    await insertScimToken(ctx.db, record);
    return { record, answer: { ...present(record), token } };
  },
});
