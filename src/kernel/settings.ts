/**
 * The settings catalogue (control-plane.md §2): every organisation setting, its type, its default,
 * and whether a workspace may override it. The organisation and workspace resources validate against
 * it, `GET /v1/workspaces/{id}/effective-settings` reports from it, and `effectiveSetting` is the one
 * way anything (roles, key rotation, log visibility) reads a setting's value for a workspace.
 * docs/tenancy.md lists the same table.
 */

/** The type of a setting's value. */
export type SettingType = 'boolean' | 'rotation_period' | 'session_ttl';

/** One entry of the catalogue. */
export interface SettingSpec {
  readonly type: SettingType;
  readonly default: SettingValue;
  /** Whether a workspace's `settings` may override it. */
  readonly workspace: boolean;
}

/** A setting's value. */
export type SettingValue = boolean | 'weekly' | 'monthly' | number | null;

/** Every setting, by its path (`session_settings.max_session_ttl` is nested in stored settings). */
export const SETTINGS = {
  user_api_key_rotation_period: { type: 'rotation_period', default: null, workspace: true },
  user_api_key_auto_create: { type: 'boolean', default: false, workspace: false },
  'session_settings.max_session_ttl': { type: 'session_ttl', default: 86400, workspace: false },
  membersViewAllData: { type: 'boolean', default: true, workspace: true },
  managersViewAllData: { type: 'boolean', default: true, workspace: true },
  organisationAdminsViewLogs: { type: 'boolean', default: true, workspace: false },
  organisationAdminsViewLogMetadata: { type: 'boolean', default: true, workspace: false },
  managersWriteWsIntegrations: { type: 'boolean', default: true, workspace: true },
  managersWriteWsMcpIntegrations: { type: 'boolean', default: true, workspace: true },
  managersWriteMcpServers: { type: 'boolean', default: true, workspace: true },
  log_bodies: { type: 'boolean', default: false, workspace: true },
} as const satisfies Record<string, SettingSpec>;

/** A setting of the catalogue. */
export type SettingKey = keyof typeof SETTINGS;

/** Every setting, in catalogue order. */
export const SETTING_KEYS = Object.keys(SETTINGS) as SettingKey[];

/** The settings a workspace may override. */
export const WORKSPACE_SETTING_KEYS = SETTING_KEYS.filter((k) => SETTINGS[k].workspace);

/** The smallest `session_settings.max_session_ttl` (seconds). */
export const MIN_SESSION_TTL = 900;

/** Where an effective value comes from. */
export type SettingSource = 'workspace' | 'organisation' | 'default';

/** Stored settings: an object as saved (`session_settings` nested). */
export type StoredSettings = Readonly<Record<string, unknown>>;

/** The value stored at a setting's path, or undefined when it is not set there. */
function storedAt(settings: StoredSettings | null | undefined, key: SettingKey): unknown {
  if (!settings) return undefined;
  const dot = key.indexOf('.');
  if (dot < 0) return Object.hasOwn(settings, key) ? settings[key] : undefined;
  const group = settings[key.slice(0, dot)];
  if (group === null || typeof group !== 'object') return undefined;
  const inner = group as Record<string, unknown>;
  const name = key.slice(dot + 1);
  return Object.hasOwn(inner, name) ? inner[name] : undefined;
}

/**
 * The value of a setting for a workspace and where it comes from: the workspace's override (only for
 * keys a workspace may override), else the organisation's, else the catalogue's default.
 */
export function effectiveSetting<K extends SettingKey>(
  key: K,
  workspaceSettings: StoredSettings | null | undefined,
  organisationSettings: StoredSettings | null | undefined,
): { value: SettingValue; source: SettingSource } {
  const spec: SettingSpec = SETTINGS[key];
  if (spec.workspace) {
    const own = storedAt(workspaceSettings, key);
    if (own !== undefined) return { value: own as SettingValue, source: 'workspace' };
  }
  const org = storedAt(organisationSettings, key);
  if (org !== undefined) return { value: org as SettingValue, source: 'organisation' };
  return { value: spec.default, source: 'default' };
}

/** Every setting's effective value for a workspace (what `effective-settings` answers). */
export function effectiveSettings(
  workspaceSettings: StoredSettings | null | undefined,
  organisationSettings: StoredSettings | null | undefined,
): Record<SettingKey, { value: SettingValue; source: SettingSource }> {
  const out = {} as Record<SettingKey, { value: SettingValue; source: SettingSource }>;
  for (const key of SETTING_KEYS) out[key] = effectiveSetting(key, workspaceSettings, organisationSettings);
  return out;
}

/** The organisation's whole settings: every key, its stored value or its default (`session_settings` nested). */
export function organisationSettingsView(stored: StoredSettings | null | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of SETTING_KEYS) {
    const value = effectiveSetting(key, null, stored).value;
    const dot = key.indexOf('.');
    if (dot < 0) out[key] = value;
    else ((out[key.slice(0, dot)] ??= {}) as Record<string, unknown>)[key.slice(dot + 1)] = value;
  }
  return out;
}
