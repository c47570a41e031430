import { describe, expect, it } from 'vitest';
import { compileConfig } from '../../routing/compile-config.js';
import type { ConfigObject } from '../../routing/config-schema.js';
import type { StoredGuardrail } from './guardrails-repo.js';
import { chainOf, checkReferences, indexTree, planOf, resolveItems } from './guardrail-plan.js';
import { thrown } from './test-support.js';

const leaf = (extra: Record<string, unknown> = {}): ConfigObject => ({ provider: 'openai', api_key: 'k', ...extra });
const stored: StoredGuardrail = {
  id: 'g1',
  organisation_id: 'o',
  workspace_id: 'w',
  name: 'n',
  slug: 'slug-1',
  checks: [{ id: 'default.contains', parameters: { words: ['x'] } }],
  actions: { deny: true },
  created_at: 0,
  updated_at: 0,
};
const lookup = (ref: string) => (ref === 'g1' || ref === 'slug-1' ? stored : undefined);

describe('guardrail plan of a compiled config', () => {
  const config = compileConfig({
    strategy: { mode: 'fallback' },
    input_guardrails: ['slug-1'],
    targets: [
      {
        strategy: { mode: 'loadbalance' },
        output_guardrails: [{ 'default.notNull': {} }],
        targets: [
          leaf({ before_request_hooks: [{ id: 'h', checks: [{ id: 'default.wordCount', parameters: { maxWords: 5 } }] }] }),
          leaf(),
        ],
      },
      leaf(),
    ],
  });
  const root = config.root;
  const inner = root.children[0]!;

  it('indexes ancestor chains (root first) and tells whether the tree has guardrails', () => {
    expect(indexTree(root)).toBe(true);
    expect(chainOf(inner.children[0]!).map((n) => n.path)).toEqual(['config', 'config.targets[0]', 'config.targets[0].targets[0]']);
    expect(chainOf(root.children[1]!).map((n) => n.path)).toEqual(['config', 'config.targets[1]']);
    expect(indexTree(compileConfig(leaf()).root)).toBe(false);
  });

  it('splits each node’s items by event, guardrails before hooks', () => {
    expect(planOf(root)?.before.map((p) => p.kind)).toEqual(['ref']);
    expect(planOf(inner)?.after).toHaveLength(1);
    expect(planOf(inner.children[0]!)?.before[0]).toMatchObject({
      kind: 'inline',
      guardrail: { id: 'h', path: 'config.targets[0].targets[0].before_request_hooks[0]' },
    });
    expect(planOf(root.children[1]!)).toBeNull();
  });

  it('resolves references from the snapshot lookup and refuses unknown ones with the item path', () => {
    expect(resolveItems(planOf(root)!.before, lookup)[0]).toMatchObject({ id: 'g1', denyOnFail: true });
    checkReferences(root, lookup);
    const bad = compileConfig({ strategy: { mode: 'fallback' }, targets: [leaf(), leaf({ output_guardrails: ['nope'] })] });
    expect(thrown(() => checkReferences(bad.root, lookup))).toMatchObject({
      code: 'invalid_config',
      param: 'config.targets[1].output_guardrails[0]',
    });
  });

  it('a node of a tree never indexed is its own chain', () => {
    const lone = compileConfig(leaf({ input_guardrails: ['g1'] })).root;
    expect(chainOf(lone)).toEqual([lone]);
  });
});
