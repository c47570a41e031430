import type { RuntimePage, Store } from '../infra/store/store.js';
import { listActiveApiKeysPage, type ApiKeyRecord } from '../infra/store/repos/api-keys.js';
import { usersOfKeys } from '../infra/store/repos/users.js';
import type { WorkspaceDefaults } from '../infra/store/repos/organisations.js';
import { effectiveSetting, type SettingKey } from '../kernel/settings.js';
import { dataVisibility } from '../kernel/data-visibility.js';
import { effectiveWorkspaceRole, userPermissions, type OrganisationRole } from '../kernel/roles.js';
import type { KeyUser } from '../kernel/principal.js';

/** An active key as the api-keys section loads it: with its user's grant and its workspace's request defaults. */
export interface AuthKeyRow extends ApiKeyRecord {
  /** The user's roles and permissions in the key's workspace (absent for keys without a user). */
  grant?: KeyUser;
  /** Request defaults of the key's workspace, when it has any. */
  workspaceDefaults?: WorkspaceDefaults;
  /** The effective `log_bodies` setting of the key's workspace (its own, else the organisation's). */
  logBodies?: boolean;
}

/**
 * A page of active keys (as `listActiveApiKeysPage`) with what the hot path needs to know about them,
 * read in a few queries per page (never per request): each user key's user roles in the key's workspace
 * (the organisation's and workspace's settings decide a manager's optional scopes and what of the
 * workspace's logs the user sees) and the workspace's
 * request defaults. Keys of deactivated or deleted users are left out, so they stop authenticating.
 */
export async function listAuthKeyRowsPage(store: Store, p: RuntimePage): Promise<AuthKeyRow[]> {
  const keys = await listActiveApiKeysPage(store, p);
  if (!keys.length) return keys;
  const db = store.db;
  const { users, memberships } = await usersOfKeys(db, keys);
  const workspaceIds = [...new Set(keys.map((k) => k.workspace_id).filter((id): id is string => id !== null))];
  const workspaces = new Map(
    workspaceIds.length
      ? (
          await db
            .selectFrom('workspaces')
            .select(['id', 'organisation_id', 'settings', 'defaults'])
            .where('id', 'in', workspaceIds)
            .execute()
        ).map((w) => [w.id, w])
      : [],
  );
  const organisationIds = [...new Set(keys.map((k) => k.organisation_id))];
  const organisations = new Map(
    (await db.selectFrom('organisations').select(['id', 'settings']).where('id', 'in', organisationIds).execute()).map((o) => [
      o.id,
      JSON.parse(o.settings) as Record<string, unknown>,
    ]),
  );
  const out: AuthKeyRow[] = [];
  for (const k of keys) {
    const ws = k.workspace_id === null ? undefined : workspaces.get(k.workspace_id);
    const wsSettings = ws ? (JSON.parse(ws.settings) as Record<string, unknown>) : undefined;
    const row: AuthKeyRow = { ...k };
    if (ws?.defaults) row.workspaceDefaults = JSON.parse(ws.defaults) as WorkspaceDefaults;
    if (effectiveSetting('log_bodies', wsSettings, organisations.get(k.organisation_id)).value === true) row.logBodies = true;
    if (k.user_id) {
      const user = users.get(k.user_id);
      if (!user || user.status !== 'active' || user.organisation_id !== k.organisation_id) continue;
      const organisationRole = user.role as OrganisationRole;
      const membershipRole = (k.workspace_id === null ? undefined : memberships.get(`${k.workspace_id}:${user.id}`)) ?? null;
      const workspaceRole = effectiveWorkspaceRole(organisationRole, membershipRole);
      const orgSettings = organisations.get(k.organisation_id);
      const setting = (key: SettingKey) => effectiveSetting(key, wsSettings, orgSettings).value;
      const permissions = userPermissions(organisationRole, workspaceRole, setting);
      row.grant = {
        id: user.id,
        organisationRole,
        workspaceRole,
        permissions,
        visibility: dataVisibility({ organisationRole, membershipRole }, setting),
      };
    }
    out.push(row);
  }
  return out;
}
