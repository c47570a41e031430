import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { organisationSettingsView } from '../../../kernel/settings.js';
import { API_KEYS_SECTION } from '../../../runtime/core-sections.js';
import { SESSIONS_SECTION } from '../../../runtime/sessions-section.js';
import type { RuntimeChange } from '../../../kernel/runtime-change.js';
import { recordRuntimeChange } from '../../../infra/store/store.js';
import { getOrganisation, saveOrganisationSettings, type Organisation } from '../../../infra/store/repos/organisations.js';
import type { GatewayDeps } from '../../../data-plane/pipeline/deps.js';
import { principalOf, requireOrganisationAdmin } from '../../../identity/authorize.js';
import { writeAudit } from '../../resource/audit.js';
import { ErrorAnswer } from '../../resource/mount-resource.js';
import { OrganisationSettingsAnswer, OrganisationSettingsPatch, mergeSettings } from './settings-schema.js';
import { OrganisationAnswer, presentOrganisation } from './organisation-answer.js';
import { registerCreateOrganisationRoute } from './create-organisation-route.js';

const responses = (schema: typeof OrganisationAnswer | typeof OrganisationSettingsAnswer) => ({
  200: schema,
  '4xx': ErrorAnswer,
  '5xx': ErrorAnswer,
});

async function organisationOf(deps: GatewayDeps, id: string): Promise<Organisation> {
  const o = await getOrganisation(deps.store.db, id);
  if (!o) throw new GatewayError('not_found', 'Unknown organisation.');
  return o;
}

/**
 * `GET /v1/organisation` and `PUT /v1/organisation/settings` (control-plane.md §2): the caller's own
 * organisation; then `POST /v1/organisations`, the instance operator's (create-organisation-route.ts).
 * Hand-written rather than a declared resource: it is a singleton (no list, no id, no
 * create or delete) that every principal reads as its own organisation, so the resource pattern's
 * collection routes do not apply. Like the mounted routes, each route declares its permission (checked
 * by the route guard), and the settings write runs in one transaction with its audit row and runtime
 * change (the api-keys and sessions sections are reloaded: a manager's optional scopes and the session lifetime follow the settings).
 */
export function registerOrganisationRoutes(app: FastifyInstance, deps: GatewayDeps): void {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['organisation'];
  typed.get(
    '/v1/organisation',
    {
      config: { permission: 'organisation.read' },
      schema: { tags, summary: 'Read the organisation and its settings', response: responses(OrganisationAnswer) },
    },
    async (request) => presentOrganisation(await organisationOf(deps, principalOf(request).organisationId)),
  );

  typed.put(
    '/v1/organisation/settings',
    {
      config: { permission: 'organisation.write' },
      schema: {
        body: OrganisationSettingsPatch,
        tags,
        summary: 'Change organisation settings (a partial object; answers the whole settings)',
        response: responses(OrganisationSettingsAnswer),
      },
    },
    async (request) => {
      const principal = principalOf(request);
      requireOrganisationAdmin(principal, 'Changing organisation settings');
      const patch = (request.body ?? {}) as Record<string, unknown>;
      const changes: RuntimeChange[] = [
        { section: API_KEYS_SECTION, workspaceId: null },
        { section: SESSIONS_SECTION, workspaceId: null },
      ];
      const now = deps.clock.now();
      const settings = await deps.store.db.transaction().execute(async (trx) => {
        const o = await getOrganisation(trx, principal.organisationId);
        if (!o) throw new GatewayError('not_found', 'Unknown organisation.');
        const merged = mergeSettings(o.settings, patch);
        await saveOrganisationSettings(trx, o.id, merged);
        await writeAudit(trx, request, principal, now, {
          action: 'organisation.update',
          resourceType: 'organisation',
          resourceId: o.id,
          workspaceId: null,
          details: { changed: Object.keys(patch), settings: patch },
        });
        await recordRuntimeChange(trx, changes);
        return merged;
      });
      await deps.runtime.committed(changes);
      return organisationSettingsView(settings);
    },
  );

  registerCreateOrganisationRoute(app, deps);
}
