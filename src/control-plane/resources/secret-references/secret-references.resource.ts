import { Type } from 'typebox';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { uuid } from '../../../foundation/lib/ids.js';
import {
  getSecretReference,
  insertSecretReference,
  listSecretReferences,
  updateSecretReference,
  type ManagerType,
  type SecretReference,
} from '../../../infra/store/repos/secret-references.js';
import { SECRET_REFERENCES_SECTION } from '../../../runtime/secret-references-section.js';
import { authUrls, checkAuthConfig, maskAuthConfig } from '../../../infra/secrets/auth-config.js';
import { openSecretReference } from '../../../infra/secrets/open-reference.js';
import { fingerprintOf } from '../../../infra/secrets/secret-resolver.js';
import { defineAction, defineResource, type ResourceContext } from '../../resource/define-resource.js';
import { actsAsOrganisationAdmin, requireOrganisationAdmin } from '../../../identity/authorize.js';
import { IsoTime, iso } from '../../../identity/paging.js';
import { Slug } from '../../resource/slug.js';
import { checkCustomHost } from '../integrations/integration-input.js';
import { StringEnum } from '../../../foundation/spec/string-enum.js';
import { Nullable } from '../../../foundation/spec/nullable.js';

const Manager = StringEnum(['aws_sm', 'azure_kv', 'hashicorp_vault']);
// Validated by hand per manager type (checkAuthConfig), to name `auth_config.<field>`.
const Auth = Type.Record(Type.String(), Type.Unknown());
const Workspaces = Type.Array(Type.String({ minLength: 1 }), { maxItems: 1000 });
const CreateReference = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    slug: Type.Optional(Slug),
    manager_type: Manager,
    auth_config: Auth,
    secret_path: Type.String({ minLength: 1, maxLength: 1024 }),
    secret_key: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
    allow_all_workspaces: Type.Optional(Type.Boolean()),
    allowed_workspaces: Type.Optional(Workspaces),
  },
  { additionalProperties: false },
);
const UpdateReference = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    auth_config: Type.Optional(Auth),
    secret_path: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
    secret_key: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 256 }))),
    allow_all_workspaces: Type.Optional(Type.Boolean()),
    allowed_workspaces: Type.Optional(Workspaces),
  },
  { additionalProperties: false },
);
const ReferenceAnswer = Type.Object({
  id: Type.String(),
  object: Type.Literal('secret_reference'),
  name: Type.String(),
  slug: Type.String(),
  manager_type: Type.String(),
  auth_config: Type.Record(Type.String(), Type.String()),
  secret_path: Type.String(),
  secret_key: Nullable(Type.String()),
  allow_all_workspaces: Type.Boolean(),
  allowed_workspaces: Type.Array(Type.String()),
  status: Type.String(),
  created_at: IsoTime,
  last_updated_at: IsoTime,
});
const TestAnswer = Type.Object({ ok: Type.Boolean(), fingerprint: Nullable(Type.String()), error: Type.Optional(Type.String()) });

function present(r: SecretReference) {
  return {
    id: r.id,
    object: 'secret_reference' as const,
    name: r.name,
    slug: r.slug,
    manager_type: r.manager_type,
    auth_config: r.auth_hint as Record<string, string>,
    secret_path: r.secret_path,
    secret_key: r.secret_key,
    allow_all_workspaces: r.allow_all_workspaces,
    allowed_workspaces: r.allowed_workspaces,
    status: r.status,
    created_at: iso(r.created_at),
    last_updated_at: iso(r.updated_at),
  };
}

/** Validates `auth_config` for its manager and passes its URLs through the custom-host guard; returns it. */
async function checkAuth(ctx: ResourceContext, type: ManagerType, value: unknown) {
  const auth = checkAuthConfig(type, value);
  for (const [field, url] of authUrls(type, auth)) await checkCustomHost(ctx.deps.http.outbound, url, `auth_config.${field}`);
  return auth;
}

/** Workspace ids of the organisation (id or slug accepted); 404 naming the first unknown one. */
function workspaceIds(ctx: ResourceContext, list: readonly string[]): string[] {
  const snapshot = ctx.deps.runtime.current;
  return list.map((w, i) => {
    const ws = snapshot.workspacesById.get(w) ?? snapshot.workspacesBySlug.get(`${ctx.scope.organisationId}:${w}`);
    if (!ws || ws.organisation_id !== ctx.scope.organisationId)
      throw new GatewayError('not_found', `Unknown workspace '${w}'.`, { param: `allowed_workspaces[${i}]` });
    return ws.id;
  });
}

/** Organisation owners and admins only (control-plane.md §1): others see no reference at all (an empty list, 404 by id). */
function visibleTo(ctx: Pick<ResourceContext, 'principal'>): boolean {
  return actsAsOrganisationAdmin(ctx.principal);
}

/** `POST /v1/secret-references/{id}/test`: fetches the secret now and answers its fingerprint (never the value). */
const testAction = defineAction<SecretReference, never, typeof TestAnswer>({
  verb: 'test',
  method: 'POST',
  suffix: '/test',
  permission: 'secret_references.write',
  write: false,
  summary: 'Fetch the secret of a reference now and answer its fingerprint',
  answer: TestAnswer,
  async run(ctx, r) {
    try {
      const value = await ctx.deps.secretResolver.probe(openSecretReference(ctx.deps.secrets, r));
      return { answer: { ok: true, fingerprint: fingerprintOf(value) } };
    } catch (err) {
      return { answer: { ok: false, fingerprint: null, error: (err as Error).message } };
    }
  },
});

/**
 * `/v1/secret-references`: where a secret lives in an external manager and how to authenticate there
 * (organisation owners and admins only). `auth_config` is validated per manager, its URLs pass the
 * custom-host guard, it is sealed at rest and shown only with its secret members masked. Writes
 * reload the `secret-references` runtime section, after which the resolver fetches values in the background.
 */
export const secretReferencesResource = defineResource({
  name: 'secret_reference',
  paths: ['/v1/secret-references'],
  tag: 'secret references',
  noun: { one: 'a secret reference', many: 'secret references' },
  permissions: { read: 'secret_references.read', write: 'secret_references.write' },
  runtimeSections: [SECRET_REFERENCES_SECTION],
  schemas: { create: CreateReference, update: UpdateReference, listQuery: Type.Object({}), answer: ReferenceAnswer },
  removal: 'archive',
  unique: { param: 'slug', message: 'A secret reference with this slug already exists in this organisation.' },
  repo: {
    get: (db, scope, idOrSlug, viewer) =>
      visibleTo({ principal: viewer }) ? getSecretReference(db, scope, idOrSlug) : Promise.resolve(undefined),
    list: (db, scope, _query, page, viewer) =>
      visibleTo({ principal: viewer }) ? listSecretReferences(db, scope, page) : Promise.resolve({ rows: [], total: 0 }),
    async remove(db, scope, r, now) {
      const after = { ...r, status: 'archived' as const };
      await updateSecretReference(db, scope, after, now);
      return after;
    },
  },
  idOf: (r) => r.id,
  workspaceOf: () => null,
  present,
  async create(ctx, body) {
    requireOrganisationAdmin(ctx.principal, 'Creating a secret reference');
    const auth = await checkAuth(ctx, body.manager_type, body.auth_config);
    const id = uuid();
    const record: SecretReference = {
      id,
      organisation_id: ctx.scope.organisationId,
      name: body.name,
      slug: body.slug ?? `${body.manager_type.replace('_', '-')}-${uuid().slice(0, 8)}`,
      manager_type: body.manager_type,
      auth_ciphertext: ctx.deps.secrets.encrypt(JSON.stringify(auth), id),
      auth_hint: maskAuthConfig(body.manager_type, auth),
      secret_path: body.secret_path,
      secret_key: body.secret_key ?? null,
      allow_all_workspaces: body.allow_all_workspaces ?? true,
      allowed_workspaces: workspaceIds(ctx, body.allowed_workspaces ?? []),
      status: 'active',
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await insertSecretReference(ctx.db, ctx.scope, record);
    return { record, details: { name: record.name, slug: record.slug, manager_type: record.manager_type } };
  },
  async update(ctx, r, body) {
    const next: SecretReference = { ...r };
    if (body.name !== undefined) next.name = body.name;
    if (body.auth_config !== undefined) {
      const auth = await checkAuth(ctx, r.manager_type, body.auth_config);
      next.auth_ciphertext = ctx.deps.secrets.encrypt(JSON.stringify(auth), r.id);
      next.auth_hint = maskAuthConfig(r.manager_type, auth);
    }
    if (body.secret_path !== undefined) next.secret_path = body.secret_path;
    if (body.secret_key !== undefined) next.secret_key = body.secret_key;
    if (body.allow_all_workspaces !== undefined) next.allow_all_workspaces = body.allow_all_workspaces;
    if (body.allowed_workspaces !== undefined) next.allowed_workspaces = workspaceIds(ctx, body.allowed_workspaces);
    // A new version: cached values of the old one are not used again.
    const now = Math.max(ctx.now, r.updated_at + 1);
    await updateSecretReference(ctx.db, ctx.scope, next, now);
    return { record: { ...next, updated_at: now }, details: { changed: Object.keys(body) } };
  },
  actions: [testAction],
});
