import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import type { ApiKeyDefaults } from '../../../infra/store/repos/api-keys.js';
import { getConfig } from '../../../infra/store/repos/configs.js';
import type { ResourceContext } from '../../resource/define-resource.js';

/**
 * Checks the `defaults` of a key being saved and returns them as stored (null when none). The default
 * config must be a stored config of the key's workspace (an organisation key's: its organisation's
 * default workspace), named by id or slug and stored by id; a config of another workspace of the
 * organisation is 404 `not_found`, an unknown one 400 `invalid_request`, both naming `defaults.config_id`.
 */
export async function checkKeyDefaults(
  ctx: ResourceContext,
  keyWorkspaceId: string | null,
  defaults: ApiKeyDefaults | null | undefined,
): Promise<ApiKeyDefaults | null> {
  if (!defaults) return null;
  const out: ApiKeyDefaults = { ...defaults };
  if (defaults.config_id !== undefined) {
    const organisationId = ctx.principal.organisationId;
    const snapshot = ctx.deps.runtime.current;
    const workspaceId = keyWorkspaceId ?? snapshot.defaultWorkspaceByOrganisation.get(organisationId);
    const organisationWorkspaces = [...snapshot.workspacesById.values()]
      .filter((w) => w.organisation_id === organisationId)
      .map((w) => w.id);
    const scope = (workspaceIds: string[]) => ({ organisationId, workspaceIds, organisationWide: false });
    const own = workspaceId === undefined ? undefined : await getConfig(ctx.db, scope([workspaceId]), defaults.config_id);
    if (own?.status === 'active') {
      out.config_id = own.id;
      return out;
    }
    const elsewhere = await getConfig(ctx.db, scope(organisationWorkspaces), defaults.config_id);
    if (elsewhere?.status === 'active') {
      throw new GatewayError('not_found', `defaults.config_id: config '${defaults.config_id}' is not in the key's workspace.`, {
        param: 'defaults.config_id',
      });
    }
    throw new GatewayError('invalid_request', `defaults.config_id: no stored config '${defaults.config_id}'.`, {
      param: 'defaults.config_id',
    });
  }
  return out;
}
