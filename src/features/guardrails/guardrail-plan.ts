/**
 * Per compiled config: the normalised guardrail items of each node and each node's chain of
 * ancestors (root first), computed once per compiled tree (compiled configs are cached, so this is
 * off the hot path) and kept in WeakMaps keyed by the compiled nodes.
 */
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import type { CompiledNode } from '../../routing/compiled-config.js';
import type { StoredGuardrail } from './guardrails-repo.js';
import { GUARDRAIL_LISTS, fromStored, planItem, type Guardrail, type ItemPlan } from './guardrail-spec.js';

/** A node's own guardrail items by event, in list order (guardrails before hooks). */
export interface NodePlan {
  before: ItemPlan[];
  after: ItemPlan[];
}

const plans = new WeakMap<CompiledNode, NodePlan | null>();
const chains = new WeakMap<CompiledNode, readonly CompiledNode[]>();
const treeFlags = new WeakMap<CompiledNode, boolean>();

/** The node's own items, or null when it declares none. */
export function planOf(node: CompiledNode): NodePlan | null {
  let plan = plans.get(node);
  if (plan !== undefined) return plan;
  const p: NodePlan = { before: [], after: [] };
  for (const list of GUARDRAIL_LISTS) {
    const items = node.raw[list.key];
    if (!Array.isArray(items)) continue;
    items.forEach((item, i) => {
      const planned = planItem(list, item, `${node.path}.${list.key}[${i}]`);
      (list.event === 'beforeRequestHook' ? p.before : p.after).push(planned);
    });
  }
  plan = p.before.length || p.after.length ? p : null;
  plans.set(node, plan);
  return plan;
}

/**
 * Records the ancestor chain of every node under `root`; returns whether any node of the tree
 * declares guardrails. Cheap after the first call for a tree.
 */
export function indexTree(root: CompiledNode): boolean {
  const known = treeFlags.get(root);
  if (known !== undefined) return known;
  let any = false;
  const walk = (node: CompiledNode, above: readonly CompiledNode[]): void => {
    const chain = [...above, node];
    chains.set(node, chain);
    if (planOf(node)) any = true;
    for (const child of node.children) walk(child, chain);
  };
  walk(root, []);
  treeFlags.set(root, any);
  return any;
}

/** Root-first chain of a node of an indexed tree; `[node]` when its tree was never indexed. */
export function chainOf(node: CompiledNode): readonly CompiledNode[] {
  return chains.get(node) ?? [node];
}

/** Finds a stored guardrail of the request's workspace by id or slug. */
export type StoredLookup = (idOrSlug: string) => StoredGuardrail | undefined;

/** Turns items into runnable guardrails; 400 `invalid_config` for a reference to no stored guardrail. */
export function resolveItems(items: readonly ItemPlan[], lookup: StoredLookup): Guardrail[] {
  return items.map((item) => {
    if (item.kind === 'inline') return item.guardrail;
    const stored = lookup(item.ref);
    if (!stored)
      throw new GatewayError('invalid_config', `Invalid config: ${item.path} names no stored guardrail '${item.ref}' in this workspace`, {
        param: item.path,
      });
    return fromStored(stored, item);
  });
}

/** Checks every reference of the tree under `root` (so a bad id fails before any provider is called). */
export function checkReferences(root: CompiledNode, lookup: StoredLookup): void {
  const visit = (node: CompiledNode): void => {
    const plan = planOf(node);
    if (plan) {
      resolveItems(plan.before, lookup);
      resolveItems(plan.after, lookup);
    }
    node.children.forEach(visit);
  };
  visit(root);
}
