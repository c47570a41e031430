import type { Resource } from '../resource/define-resource.js';
import { apiKeysResource } from './api-keys/api-keys.resource.js';
import { configsResource } from './configs/configs.resource.js';
import { virtualKeysResource } from './virtual-keys/virtual-keys.resource.js';
import { guardrailsResource } from './guardrails/guardrails.resource.js';
import { rateLimitPoliciesResource } from './rate-limit-policies/rate-limit-policies.resource.js';
import { usageLimitPoliciesResource } from './usage-limit-policies/usage-limit-policies.resource.js';
import { promptPartialsResource } from './prompt-partials/prompt-partials.resource.js';
import { promptsResource } from './prompts/prompts.resource.js';
import { usersResource } from './users/users.resource.js';
import { workspacesResource } from './workspaces/workspaces.resource.js';
import { workspaceMembersResource } from './workspaces/workspace-members.resource.js';
import { logsResource } from './logs/logs.resource.js';
import { integrationsResource } from './integrations/integrations.resource.js';
import { agentServersResource } from './agent-servers/agent-servers.resource.js';
import { scimTokensResource } from '../identity/scim/scim-tokens.resource.js';
import { scimMappingsResource } from '../identity/scim/scim-mappings.resource.js';
import { mcpIntegrationsResource } from './mcp-integrations/mcp-integrations.resource.js';
import { mcpServersResource } from './mcp-servers/mcp-servers.resource.js';
import { secretReferencesResource } from './secret-references/secret-references.resource.js';

/** Every declared admin resource: mounted by `registerAdminRoutes`, walked by the conformance suite. One a line. */
export const ADMIN_RESOURCES: ReadonlyArray<Resource<unknown>> = [
  apiKeysResource,
  configsResource,
  virtualKeysResource,
  guardrailsResource,
  rateLimitPoliciesResource,
  usageLimitPoliciesResource,
  promptPartialsResource,
  promptsResource,
  workspacesResource,
  workspaceMembersResource,
  usersResource,
  logsResource,
  integrationsResource,
  agentServersResource,
  scimTokensResource,
  scimMappingsResource,
  mcpIntegrationsResource,
  mcpServersResource,
  secretReferencesResource,
];
