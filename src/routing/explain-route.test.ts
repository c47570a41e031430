import { describe, expect, it } from 'vitest';
import { compileConfig } from './compile-config.js';
import { validateConfig } from './validate-config.js';
import { explainRoute, type CircuitView } from './explain-route.js';
import type { CompiledNode } from './compiled-config.js';

const closed = async (): Promise<CircuitView> => ({ state: 'closed', failures: 0 });

/** loadbalance(70: fallback(conditional(premium → A, default B), C), 30: D) */
const nested = {
  strategy: { mode: 'loadbalance' },
  retry: { attempts: 2 },
  targets: [
    {
      weight: 7,
      strategy: { mode: 'fallback', on_status_codes: [429, 503] },
      request_timeout: 5000,
      targets: [
        {
          strategy: {
            mode: 'conditional',
            conditions: [
              { query: { 'metadata.plan': 'premium' }, then: 'A' },
              { query: { 'params.model': { $in: ['gpt-4o'] } }, then: 'B' },
            ],
            default: 'B',
          },
          input_guardrails: [{ id: 'g1', deny: true, default: { regexMatch: { rule: 'x' } } }],
          targets: [
            { name: 'A', provider: 'openai', api_key: 'sk-a', override_params: { model: 'gpt-4.1' } },
            { name: 'B', provider: 'anthropic', api_key: 'sk-b', cache: { mode: 'simple' } },
          ],
        },
        { name: 'C', provider: 'google', api_key: 'k-c', cb_config: { failure_threshold: 1, cooldown_interval: 30000 } },
      ],
    },
    { name: 'D', weight: 3, provider: 'mistral-ai', api_key: 'k-d' },
  ],
};

function compiled(config: unknown): CompiledNode {
  return compileConfig(validateConfig(config, () => true)).root;
}

describe('explainRoute', () => {
  it('walks loadbalance → fallback → conditional node by node, with chances and inherited settings', async () => {
    const e = await explainRoute(compiled(nested), { model: 'gpt-4o', metadata: { plan: 'premium' } }, closed);
    expect(e.nodes.map((n) => [n.path, n.mode, n.probability])).toEqual([
      ['config', 'loadbalance', 1],
      ['config.targets[0]', 'fallback', 0.7],
      ['config.targets[0].targets[0]', 'conditional', 0.7],
      ['config.targets[0].targets[0].targets[0]', 'leaf', 0.7],
      ['config.targets[0].targets[1]', 'leaf', 0],
      ['config.targets[1]', 'leaf', 0.3],
    ]);
    expect(e.nodes[0]!.weights).toEqual([
      { path: 'config.targets[0]', weight: 7, chance: 0.7 },
      { path: 'config.targets[1]', weight: 3, chance: 0.3 },
    ]);
    expect(e.nodes[1]).toMatchObject({
      order: ['config.targets[0].targets[0]', 'config.targets[0].targets[1]'],
      on_status_codes: [429, 503],
    });
    expect(e.nodes[2]).toMatchObject({
      conditions: [
        { then: 'config.targets[0].targets[0].targets[0]', matched: true },
        { then: 'config.targets[0].targets[0].targets[1]', matched: true },
      ],
      chosen: 'config.targets[0].targets[0].targets[0]',
      reason: 'condition 0 matched',
    });
    const [a, d, c] = e.targets;
    expect(a).toMatchObject({ name: 'A', provider: 'openai', model: 'gpt-4.1', probability: 0.7, role: 'primary' });
    expect(a!.settings).toMatchObject({
      retry: { attempts: 2 },
      request_timeout: 5000,
      cache: null,
      override_params: { model: 'gpt-4.1' },
    });
    expect(a!.settings.guardrails).toEqual([
      { list: 'input_guardrails', path: 'config.targets[0].targets[0]', item: nested.targets[0]!.targets![0]!.input_guardrails![0] },
    ]);
    expect(d).toMatchObject({
      name: 'D',
      provider: 'mistral-ai',
      model: 'gpt-4o',
      probability: 0.3,
      role: 'primary',
      settings: { request_timeout: null, retry: { attempts: 2 } },
    });
    expect(c).toMatchObject({
      name: 'C',
      probability: 0,
      role: 'fallback',
      circuit: { state: 'closed', failures: 0 },
      settings: { cb_config: { failure_threshold: 1, cooldown_interval: 30000 } },
    });
    expect(JSON.stringify(e)).not.toContain('sk-a');
  });

  it('takes the default when no condition matches, and says so', async () => {
    const e = await explainRoute(compiled(nested), { model: 'o3', metadata: { plan: 'free' } }, closed);
    expect(e.nodes[2]).toMatchObject({ chosen: 'config.targets[0].targets[0].targets[1]', reason: 'no condition matched: the default' });
    expect(e.targets[0]).toMatchObject({ name: 'B', provider: 'anthropic', model: 'o3', settings: { cache: { mode: 'simple' } } });
  });

  it('skips targets whose circuit is open: the fallback is primary, loadbalance chances renormalised', async () => {
    const config = {
      strategy: { mode: 'loadbalance' },
      cb_config: { failure_threshold: 1, cooldown_interval: 30000 },
      targets: [
        { name: 'X', provider: 'openai', api_key: 'a', weight: 1 },
        { name: 'Y', provider: 'openai', api_key: 'b', weight: 1 },
        { name: 'Z', provider: 'openai', api_key: 'c', weight: 2 },
      ],
    };
    const root = compiled(config);
    const openX = async (leaf: CompiledNode): Promise<CircuitView> =>
      leaf.name === 'X' ? { state: 'open', failures: 1 } : { state: 'closed', failures: 0 };
    const e = await explainRoute(root, {}, openX);
    expect(e.nodes[0]!.weights!.map((w) => w.chance)).toEqual([0, 1 / 3, 2 / 3]);
    expect(e.targets.map((t) => [t.name, t.probability])).toEqual([
      ['Z', 2 / 3],
      ['Y', 1 / 3],
      ['X', 0],
    ]);
    expect(e.targets[2]!.circuit).toEqual({ state: 'open', failures: 1 });
  });
});
