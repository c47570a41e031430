import { Type, type TSchema } from 'typebox';
import {
  MIN_SESSION_TTL,
  SETTINGS,
  SETTING_KEYS,
  WORKSPACE_SETTING_KEYS,
  type SettingKey,
  type SettingType,
} from '../../../kernel/settings.js';
import { StringEnum } from '../../../foundation/spec/string-enum.js';

/** The schema of one setting's value, by its type in the catalogue. */
function valueSchema(type: SettingType): TSchema {
  switch (type) {
    case 'boolean':
      return Type.Boolean();
    case 'rotation_period':
      return Type.Union([Type.Literal('weekly'), Type.Literal('monthly'), Type.Null()]);
    case 'session_ttl':
      return Type.Integer({ minimum: MIN_SESSION_TTL });
  }
}

/** An object schema of `keys` (a dotted key nests: `session_settings.max_session_ttl`), all optional, no other member. */
function settingsObject(keys: readonly SettingKey[]) {
  const props: Record<string, TSchema> = {};
  const groups: Record<string, Record<string, TSchema>> = {};
  for (const key of keys) {
    const schema = valueSchema(SETTINGS[key].type);
    const dot = key.indexOf('.');
    if (dot < 0) props[key] = Type.Optional(schema);
    else (groups[key.slice(0, dot)] ??= {})[key.slice(dot + 1)] = Type.Optional(schema);
  }
  for (const [group, inner] of Object.entries(groups)) props[group] = Type.Optional(Type.Object(inner, { additionalProperties: false }));
  return Type.Object(props, { additionalProperties: false });
}

/** `PUT /v1/organisation/settings` body: any part of the settings catalogue, every key typed; an unknown key is 400 naming it. */
export const OrganisationSettingsPatch = settingsObject(SETTING_KEYS);

/** A workspace's `settings`: overrides of the keys a workspace may override only. */
export const WorkspaceSettings = settingsObject(WORKSPACE_SETTING_KEYS);

/** The organisation's whole settings as answered (every key, stored or default). */
export const OrganisationSettingsAnswer = Type.Record(Type.String(), Type.Unknown());

const Source = StringEnum(['workspace', 'organisation', 'default']);

/** `GET /v1/workspaces/{id}/effective-settings` answer. */
export const EffectiveSettingsAnswer = Type.Object({
  settings: Type.Record(Type.String(), Type.Object({ value: Type.Unknown(), source: Source })),
});

/** Merges a partial organisation settings object into the stored one (groups such as `session_settings` merge one level down). */
export function mergeSettings(stored: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...stored };
  for (const [k, v] of Object.entries(patch)) {
    const before = out[k];
    out[k] =
      v !== null && typeof v === 'object' && before !== null && typeof before === 'object'
        ? { ...(before as object), ...(v as object) }
        : v;
  }
  return out;
}
