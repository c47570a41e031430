import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import type { CompiledNode } from '../../../routing/compiled-config.js';
import type { TargetResolverDeps } from '../../../routing/resolve-target.js';

/**
 * Refuses a config whose targets name a virtual key, provider or integration (`virtual_key`, or
 * `provider: "@slug"`) that the workspace cannot use: 400 `invalid_config` with the target's JSON path,
 * at save and at explain, instead of a 404 at request time. It asks the same lookup the data plane
 * does (`getVirtualKey` over the runtime snapshot), so a config accepted here finds its targets then.
 */
export function checkConfigReferences(root: CompiledNode, workspaceId: string, targets: Pick<TargetResolverDeps, 'getVirtualKey'>): void {
  const pending = [root];
  for (let node = pending.pop(); node; node = pending.pop()) {
    pending.push(...node.children);
    const leaf = node.leaf;
    if (!leaf) continue;
    const viaProvider = leaf.provider?.startsWith('@') === true;
    const ref = viaProvider ? leaf.provider!.slice(1) : leaf.virtualKey;
    if (ref === undefined || targets.getVirtualKey(ref, workspaceId)) continue;
    const param = `${node.path}.${viaProvider ? 'provider' : 'virtual_key'}`;
    throw new GatewayError(
      'invalid_config',
      `Invalid config: ${param} names '${ref}', which is no virtual key, provider or integration this workspace can use.`,
      { param },
    );
  }
}
