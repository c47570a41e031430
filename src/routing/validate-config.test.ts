import { describe, expect, it } from 'vitest';
import { validateConfig } from './validate-config.js';
import { compileConfig } from './compile-config.js';
import { GatewayError } from '../foundation/errors/gateway-error.js';

const known = (name: string) => ['openai', 'anthropic', 'bedrock', 'vertex-ai', 'azure-ai', 'azure-openai'].includes(name);

function errorOf(config: unknown): GatewayError {
  try {
    compileConfig(validateConfig(config, known));
  } catch (err) {
    expect(err).toBeInstanceOf(GatewayError);
    expect((err as GatewayError).code).toBe('invalid_config');
    expect((err as GatewayError).status).toBe(400);
    return err as GatewayError;
  }
  throw new Error('expected the config to be rejected');
}

describe('validateConfig', () => {
  it('accepts each any-of combination of the specification', () => {
    const ok: unknown[] = [
      { provider: 'openai', api_key: 'k' },
      { provider: 'openai', custom_host: 'http://x' },
      { virtual_key: 'vk' },
      { strategy: { mode: 'fallback' }, targets: [{ virtual_key: 'a' }] },
      { cache: { mode: 'simple' } },
      { retry: { attempts: 3 } },
      { prompt_id: 'p' },
      { forward_headers: ['x-a'] },
      { request_timeout: 1000 },
      { provider: 'bedrock', cloud1_access_key_id: 'a', cloud1_secret_access_key: 'b' },
      { provider: 'vertex-ai', cloud2_region: 'r', cloud2_service_account_json: {} },
      { provider: 'vertex-ai', cloud2_region: 'r', cloud2_project_id: 'p' },
      {
        provider: 'azure-ai',
        cloud3_deployment_name: 'd',
        cloud3_deployment_type: 'serverless',
        cloud3_region: 'r',
        cloud3_api_version: 'v',
      },
      { provider: 'azure-ai', cloud3_endpoint_name: 'e', cloud3_deployment_type: 'managed' },
      { after_request_hooks: [{ id: 'h' }] },
      { before_request_hooks: [{ id: 'h' }] },
      { input_guardrails: ['g'] },
      { output_guardrails: [{ 'default.notNull': {}, deny: true }] },
      { passthrough: true },
      { provider: '@my-slug', api_key: 'k' },
    ];
    for (const c of ok) expect(() => validateConfig(c, known), JSON.stringify(c)).not.toThrow();
  });

  it('rejects unknown keys at every level with the JSON path', () => {
    expect(errorOf({ provider: 'openai', api_key: 'k', colour: 1 }).message).toContain('config.colour');
    expect(
      errorOf({ strategy: { mode: 'fallback' }, targets: [{ virtual_key: 'a' }, { virtual_key: 'b', nope: true }] }).message,
    ).toContain('config.targets[1].nope');
    expect(errorOf({ retry: { attempts: 1, when: [] } }).message).toContain('config.retry.when');
    expect(errorOf({ strategy: { mode: 'fallback', extra: 1 }, targets: [{ virtual_key: 'a' }] }).message).toContain(
      'config.strategy.extra',
    );
  });

  it('names what a fixed set allows', () => {
    const e = errorOf({ strategy: { mode: 'roundrobin' }, targets: [{ virtual_key: 'a' }] });
    expect(e.message).toBe('Invalid config: config.strategy.mode must be one of single, loadbalance, fallback, conditional');
    expect(e.param).toBe('config.strategy.mode');
    expect(errorOf({ provider: 'openai', api_key: 'k', cache: { mode: 'fuzzy' } }).message).toBe(
      'Invalid config: config.cache.mode must be one of simple, semantic',
    );
  });

  it('names the first offending key in nested targets', () => {
    const e = errorOf({
      strategy: { mode: 'fallback' },
      targets: [{ strategy: { mode: 'loadbalance' }, targets: [{ virtual_key: 'a', retry: { attempts: 9 } }] }],
    });
    expect(e.message).toContain('config.targets[0].targets[0].retry.attempts');
    expect(e.param).toBe('config.targets[0].targets[0].retry.attempts');
  });

  it('enforces the bounds', () => {
    expect(errorOf({ retry: { attempts: 6 } }).message).toContain('config.retry.attempts');
    expect(errorOf({ retry: { attempts: -1 } }).message).toContain('config.retry.attempts');
    expect(errorOf({ retry: { attempts: 1, on_status_codes: [500.5] } }).message).toContain('config.retry.on_status_codes[0]');
    expect(errorOf({ virtual_key: 'a', cb_config: { failure_threshold: 0, cooldown_interval: 30000 } }).message).toContain(
      'failure_threshold',
    );
    expect(errorOf({ virtual_key: 'a', cb_config: { failure_threshold: 1, cooldown_interval: 29999 } }).message).toContain(
      'cooldown_interval',
    );
    expect(errorOf({ virtual_key: 'a', cb_config: { failure_threshold: 1 } }).message).toContain('config.cb_config.cooldown_interval');
    expect(errorOf({ cache: { mode: 'fuzzy' } }).message).toContain('config.cache.mode');
    expect(errorOf({ strategy: { mode: 'fallback', on_status_codes: ['500'] }, targets: [{ virtual_key: 'a' }] }).message).toContain(
      'on_status_codes[0]',
    );
    expect(errorOf({ provider: 'azure-ai', cloud3_endpoint_name: 'e', cloud3_deployment_type: 'spot' }).message).toContain(
      'cloud3_deployment_type',
    );
  });

  it('rejects a config that matches no combination, naming the missing key', () => {
    expect(errorOf({ name: 'x' }).message).toContain('must contain one of');
    expect(errorOf({ provider: 'openai' }).message).toMatch(/config\.(api_key|custom_host) is required/);
    const bedrock = errorOf({ provider: 'bedrock', cloud1_access_key_id: 'a' });
    expect(bedrock.message).toContain('config.cloud1_secret_access_key is required');
    const azure = errorOf({ provider: 'azure-ai', cloud3_deployment_name: 'd', cloud3_deployment_type: 'serverless', cloud3_region: 'r' });
    expect(azure.message).toContain('cloud3_api_version');
    expect(errorOf({ strategy: { mode: 'fallback' }, targets: [{ override_params: {} }] }).param).toMatch(/^config\.targets\[0\]/);
  });

  it('checks strategy requirements', () => {
    expect(errorOf({ strategy: { mode: 'fallback' }, retry: { attempts: 1 } }).message).toContain('config.targets is required');
    expect(errorOf({ targets: [{ virtual_key: 'a' }], retry: { attempts: 1 } }).message).toContain('config.strategy is required');
    expect(errorOf({ strategy: { mode: 'loadbalance', on_status_codes: [500] }, targets: [{ virtual_key: 'a' }] }).message).toContain(
      "only in 'fallback'",
    );
    expect(errorOf({ strategy: { mode: 'conditional', default: 'a' }, targets: [{ name: 'a', virtual_key: 'a' }] }).message).toContain(
      'conditions is required',
    );
    expect(
      errorOf({ strategy: { mode: 'conditional', conditions: [{ query: {}, then: 'a' }] }, targets: [{ name: 'a', virtual_key: 'a' }] })
        .message,
    ).toContain('default is required');
    expect(
      errorOf({
        strategy: { mode: 'conditional', conditions: [{ query: {}, then: 'zz' }], default: 'a' },
        targets: [{ name: 'a', virtual_key: 'a' }],
      }).message,
    ).toContain('conditions[0].then');
    expect(
      errorOf({
        strategy: { mode: 'conditional', conditions: [{ query: { 'metadata.x': { $near: 1 } }, then: 'a' }], default: 'a' },
        targets: [{ name: 'a', virtual_key: 'a' }],
      }).message,
    ).toContain('unknown operator $near');
    expect(errorOf({ strategy: { mode: 'loadbalance' }, targets: [{ virtual_key: 'a', weight: 0 }] }).message).toContain('weight above 0');
  });

  it('keeps passthrough exclusive', () => {
    expect(errorOf({ passthrough: true, strategy: { mode: 'fallback' }, targets: [{ virtual_key: 'a' }] }).message).toContain(
      'passthrough',
    );
    expect(errorOf({ passthrough: true, override_params: { model: 'x' } }).message).toContain('config.override_params');
    expect(errorOf({ passthrough: true, input_guardrails: ['g'] }).message).toContain('config.input_guardrails');
  });

  it('rejects unknown providers and non-objects', () => {
    expect(errorOf({ provider: 'nope', api_key: 'k' }).message).toContain("unknown provider 'nope'");
    expect(errorOf([1, 2]).message).toContain('config must be a JSON object');
    expect(errorOf({ provider: 'openai', api_key: 'k', Authorization: 'Basic x' }).message).toContain('config.Authorization');
  });
});

describe('compileConfig', () => {
  it('inherits retry, cache, timeout and circuit settings, and merges override_params down the tree', () => {
    const c = compileConfig(
      validateConfig(
        {
          retry: { attempts: 2 },
          cache: { mode: 'simple', max_age: 60 },
          request_timeout: 5000,
          override_params: { temperature: 0.1, model: 'a' },
          cb_config: { failure_threshold: 2, cooldown_interval: 30000 },
          strategy: { mode: 'fallback' },
          targets: [
            { virtual_key: 'x', override_params: { model: 'b' } },
            {
              strategy: { mode: 'single' },
              retry: { attempts: 0 },
              request_timeout: 10,
              targets: [{ virtual_key: 'y', override_params: { top_p: 0.5 } }],
            },
          ],
        },
        known,
      ),
    );
    const [a, b] = c.root.children;
    expect(a!.retry?.attempts).toBe(2);
    expect(a!.cache).toEqual({ mode: 'simple', maxAgeSeconds: 60 });
    expect(a!.overrideParams).toEqual({ temperature: 0.1, model: 'b' });
    expect(a!.requestTimeoutMs).toBe(5000);
    const leaf = b!.children[0]!;
    expect(leaf.retry?.attempts).toBe(0);
    expect(leaf.requestTimeoutMs).toBe(10);
    expect(leaf.overrideParams).toEqual({ temperature: 0.1, model: 'a', top_p: 0.5 });
    expect(leaf.cb?.failureThreshold).toBe(2);
    expect(leaf.path).toBe('config.targets[1].targets[0]');
    expect(a!.leaf!.identity).not.toBe(leaf.leaf!.identity);
  });

  it('defaults: retry codes 429/500/502/503/504, cache max_age 7 days', () => {
    const c = compileConfig(validateConfig({ virtual_key: 'v', retry: { attempts: 1 }, cache: { mode: 'simple' } }, known));
    expect([...c.root.retry!.onStatusCodes]).toEqual([429, 500, 502, 503, 504]);
    expect(c.root.cache!.maxAgeSeconds).toBe(604800);
  });
});

describe('nesting limits', () => {
  function nest(depth: number): Record<string, unknown> {
    let node: Record<string, unknown> = { provider: 'openai', api_key: 'k' };
    for (let i = 0; i < depth; i++) node = { strategy: { mode: 'single' }, targets: [node] };
    return node;
  }
  const deepPath = (levels: number) => `config${'.targets[0]'.repeat(levels)}.targets`;

  it('accepts 10 levels of targets and refuses 11 and 300 with the path, before the schema recursion', () => {
    expect(compileConfig(validateConfig(nest(10), known)).root.children).toHaveLength(1);
    const e11 = errorOf(nest(11));
    expect(e11.param).toBe(deepPath(10));
    expect(e11.message).toContain('more than 10 levels deep');
    const e300 = errorOf(nest(300));
    expect(e300.param).toBe(deepPath(10));
  });

  it('refuses any JSON nested deeper than 64 levels (override_params, guardrail parameters)', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 20_000; i++) deep = { a: deep };
    const e = errorOf({ provider: 'openai', api_key: 'k', override_params: deep });
    expect(e.param).toBe(`config.override_params${'.a'.repeat(63)}`);
    let ok: unknown = 1;
    for (let i = 0; i < 20; i++) ok = [ok];
    expect(validateConfig({ provider: 'openai', api_key: 'k', override_params: { x: ok } }, known)).toBeDefined();
  });
});
