import { isOrganisationAdmin, type OrganisationRole, type WorkspaceRole } from './roles.js';
import type { SettingKey, SettingValue } from './settings.js';

/**
 * What of a workspace's request data (logs, analytics) a principal sees (control-plane.md §1, "logs
 * and analytics"): every request or only its user's own, and whether request/response bodies and
 * `metadata` are shown.
 */
export interface DataVisibility {
  /** `all`: every request of the workspace; `own`: only requests authenticated by the user's own credentials. */
  readonly rows: 'all' | 'own';
  /** Request and response bodies. */
  readonly bodies: boolean;
  /** The request's `metadata`. */
  readonly metadata: boolean;
}

/** Everything: service principals (their scopes decide whether they read at all), workspace admins. */
export const FULL_VISIBILITY: DataVisibility = Object.freeze({ rows: 'all', bodies: true, metadata: true });

/** A user's standing in one workspace, as the visibility rule needs it. */
export interface VisibilityUser {
  readonly organisationRole: OrganisationRole;
  /** The user's own membership role in the workspace (null: not a member, whatever the organisation role). */
  readonly membershipRole: WorkspaceRole | null;
}

/**
 * The one visibility rule, for logs and analytics alike. `user` null (a service principal) sees
 * everything within its tenant scope. A workspace admin sees everything; an organisation owner or admin
 * who is a member of the workspace (any role) too. One who is not a member sees every request, without
 * bodies when `organisationAdminsViewLogs` is false and without `metadata` when
 * `organisationAdminsViewLogMetadata` is false (each setting alone decides its part). A manager sees
 * every request when `managersViewAllData`, else only its own; a member likewise with
 * `membersViewAllData`; a user without a role in the workspace only its own. `setting` reads a setting's
 * effective value in the workspace (`effectiveSetting`).
 */
export function dataVisibility(user: VisibilityUser | null, setting: (key: SettingKey) => SettingValue): DataVisibility {
  if (user === null) return FULL_VISIBILITY;
  if (isOrganisationAdmin(user.organisationRole)) {
    if (user.membershipRole !== null) return FULL_VISIBILITY;
    return {
      rows: 'all',
      bodies: setting('organisationAdminsViewLogs') !== false,
      metadata: setting('organisationAdminsViewLogMetadata') !== false,
    };
  }
  switch (user.membershipRole) {
    case 'admin':
      return FULL_VISIBILITY;
    case 'manager':
      return { rows: setting('managersViewAllData') === false ? 'own' : 'all', bodies: true, metadata: true };
    case 'member':
      return { rows: setting('membersViewAllData') === false ? 'own' : 'all', bodies: true, metadata: true };
    default:
      return { rows: 'own', bodies: true, metadata: true };
  }
}
