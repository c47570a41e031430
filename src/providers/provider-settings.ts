import { Type, type TSchema } from 'typebox';
import { URL_FIELDS, type UrlFieldName } from './url-fields.js';

/**
 * A provider's own settings: the config keys it reads from a target (`cloud1_region`, `deployment_id`,
 * ...), each an optional TypeBox schema. The registry merges every provider's into the config object's
 * schema, and an integration's `configurations` are validated against its provider's alone.
 */
export type ProviderSettings = Readonly<Record<string, TSchema>>;

/** A setting that becomes part of an upstream URL: a string matching its documented pattern (`URL_FIELDS`). */
export function urlSetting(name: UrlFieldName): TSchema {
  return Type.String({ pattern: URL_FIELDS[name].pattern.source });
}
