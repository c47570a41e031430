import type { SecretBox } from '../../foundation/lib/secret-box.js';
import type { SecretReference } from '../store/repos/secret-references.js';
import type { AuthConfig } from './auth-config.js';
import type { SecretSource } from './secret-source.js';

/** A stored reference with its `auth_config` opened (sealed with the row id as context): what the resolver fetches with. */
export function openSecretReference(box: SecretBox, r: SecretReference): SecretSource {
  return {
    id: r.id,
    name: r.name,
    organisationId: r.organisation_id,
    managerType: r.manager_type,
    auth: JSON.parse(box.decrypt(r.auth_ciphertext, r.id)) as AuthConfig,
    path: r.secret_path,
    key: r.secret_key,
    version: r.updated_at,
    allowAllWorkspaces: r.allow_all_workspaces,
    allowedWorkspaces: r.allowed_workspaces,
  };
}
