import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import type { GatewayDeps } from '../../../data-plane/pipeline/deps.js';
import type { RuntimeChange } from '../../../kernel/runtime-change.js';
import { API_KEYS_SECTION, WORKSPACES_SECTION } from '../../../runtime/core-sections.js';
import { isUniqueViolation, recordRuntimeChange } from '../../../infra/store/store.js';
import { insertTenant } from '../../../infra/store/repos/organisations.js';
import { isInstanceOperatorKey } from '../../../infra/store/repos/api-keys.js';
import { principalOf } from '../../../identity/authorize.js';
import { writeAudit } from '../../resource/audit.js';
import { ErrorAnswer } from '../../resource/mount-resource.js';
import { Slug } from '../../resource/slug.js';
import { insertAdminKey } from '../api-keys/admin-key.js';
import { newKeyValue } from '../api-keys/key-value.js';
import { OrganisationAnswer, presentOrganisation } from './organisation-answer.js';

const CreateOrganisation = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 200 }), slug: Slug },
  { additionalProperties: false },
);
const CreatedOrganisation = Type.Object({
  ...OrganisationAnswer.properties,
  /** The value of the organisation's first organisation-service key (`*`): shown once, never again. */
  admin_key: Type.String(),
});

const slugTaken = (slug: string) => new GatewayError('conflict', `An organisation with slug '${slug}' already exists.`, { param: 'slug' });

/**
 * 403 `forbidden` unless the request is made with the instance operator's key: the organisation-service
 * admin key the bootstrap made on first start (marked in the store, migration 0033). Any other key,
 * whatever its scopes or organisation, session, or JWT is refused; checked before the body is validated.
 */
async function requireInstanceOperator(deps: GatewayDeps, request: FastifyRequest): Promise<void> {
  const principal = principalOf(request);
  if (principal.kind === 'service_key' && (await isInstanceOperatorKey(deps.store.db, principal.keyId, principal.organisationId))) return;
  throw new GatewayError(
    'forbidden',
    "Creating an organisation needs the instance operator's key (the admin key the gateway made on its first start).",
  );
}

/**
 * `POST /v1/organisations {name, slug}`: the instance operator makes another organisation. Answers
 * 201 with the organisation (as `GET /v1/organisation` shows it) and `admin_key`, the value of its
 * first organisation-service key (`*`), shown once. The organisation gets its `default` workspace, as
 * the bootstrap's does, made by the same code (`insertTenant`, `insertAdminKey`). A taken slug is 409
 * `conflict`. Hand-written rather than a declared resource: organisations are the instance's, above
 * every tenant scope the resource pattern acts in, and only this one create exists. It declares its
 * permission (`organisation.write`, checked by the route guard) and then needs the operator's key.
 * The write, its audit row (in the operator's organisation) and its runtime change are one transaction.
 */
export function registerCreateOrganisationRoute(app: FastifyInstance, deps: GatewayDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/v1/organisations',
    {
      config: { permission: 'organisation.write' },
      preValidation: (request) => requireInstanceOperator(deps, request),
      schema: {
        body: CreateOrganisation,
        tags: ['organisation'],
        summary: "Create an organisation with its default workspace and first admin key (the instance operator's key only)",
        response: { 201: CreatedOrganisation, '4xx': ErrorAnswer, '5xx': ErrorAnswer },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const { name, slug } = request.body;
      const value = newKeyValue(deps.settings.apiKeyPrefix);
      const now = deps.clock.now();
      let changes: RuntimeChange[] = [];
      let created;
      try {
        created = await deps.store.db.transaction().execute(async (trx) => {
          if (await trx.selectFrom('organisations').select('id').where('slug', '=', slug).executeTakeFirst()) throw slugTaken(slug);
          const { organisation, workspace } = await insertTenant(trx, { name, slug }, now);
          const keyId = await insertAdminKey(
            trx,
            { organisationId: organisation.id, workspaceId: workspace.id },
            value,
            deps.settings.apiKeyPrefix,
            now,
            false,
          );
          await writeAudit(trx, request, principal, now, {
            action: 'organisation.create',
            resourceType: 'organisation',
            resourceId: organisation.id,
            workspaceId: null,
            details: { name, slug, default_workspace_id: workspace.id, admin_key_id: keyId },
          });
          changes = [
            { section: WORKSPACES_SECTION, workspaceId: workspace.id },
            { section: API_KEYS_SECTION, workspaceId: null },
          ];
          await recordRuntimeChange(trx, changes);
          return organisation;
        });
      } catch (err) {
        // Two creates racing for one slug: the loser meets the unique index.
        if (isUniqueViolation(err)) throw slugTaken(slug);
        throw err;
      }
      await deps.runtime.committed(changes);
      return reply.code(201).send({ ...presentOrganisation(created), admin_key: value });
    },
  );
}
