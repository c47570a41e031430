import type { Capability } from '../data-plane/pipeline/capability.js';
import { cacheCapability } from '../features/cache/cache-capability.js';
import { guardrailsCapability } from '../features/guardrails/guardrails-capability.js';
import { imagesCapability } from '../data-plane/endpoints/images/images-capability.js';
import { limitsCapability } from '../features/limits/limits-capability.js';
import { promptsCapability } from '../features/prompts/prompts-capability.js';
import { responsesCapability } from '../data-plane/endpoints/responses/responses-capability.js';
import { messagesCapability } from '../data-plane/endpoints/messages/messages-capability.js';
import { filesCapability } from '../data-plane/endpoints/files/files-capability.js';
import { batchesCapability } from '../data-plane/endpoints/batches/batches-capability.js';
import { fineTuningCapability } from '../data-plane/endpoints/fine-tuning/fine-tuning-capability.js';
import { agentsCapability } from '../features/agents/agents-capability.js';
import { identityCapability } from '../control-plane/identity/identity-capability.js';
import { mcpCapability } from '../features/mcp/mcp-capability.js';

/**
 * The capabilities of the gateway, in order: their hooks run in this order before routing, and
 * their leaf interceptors wrap the provider call in this order (first = outermost).
 */
export const CAPABILITIES: Capability[] = [
  promptsCapability, // first: its hook renders a config's prompt_id into the body the other hooks then see
  imagesCapability, // outermost interceptor: cached image answers keep their bytes, every answer gets fresh signed links
  limitsCapability, // rate limits: after request-rewriting hooks (the model is final), before guardrails spend work on a refused request
  guardrailsCapability, // after request-rewriting hooks (prompts); outside the cache so cached answers are checked too
  cacheCapability(), // innermost interceptor: guardrails listed before it also check cache hits
  responsesCapability, // routes only: /v1/responses goes through the hooks and interceptors above
  messagesCapability, // routes only: /v1/messages (Anthropic Messages API), native or over chat, through the same hooks
  filesCapability(), // routes only: /v1/files, forwarded to a provider's Files API or stored by the gateway
  batchesCapability(), // /v1/batches and the background worker running gateway-managed batches through the data plane
  fineTuningCapability, // routes only: /v1/fine_tuning/jobs, forwarded to a provider's tuning API
  agentsCapability, // /v1/agents/{slug}, the A2A proxy: runs the request-level hooks above (limits), then relays to the agent server
  identityCapability, // JWT verifiers (a runtime section the auth hook reads), SSO and SCIM routes
  mcpCapability, // /v1/mcp/{slug}/mcp: MCP clients proxied to upstream MCP servers; tool calls run the hooks above (limits) and are logged
];
