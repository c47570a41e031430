import { LRUCache } from 'lru-cache';
import { GatewayError } from '../foundation/errors/gateway-error.js';
import { tryParseJson } from '../foundation/lib/json.js';
import type { CompiledConfig } from './compiled-config.js';
import { compileConfig } from './compile-config.js';
import { validateConfig } from './validate-config.js';

/**
 * Inline configs (the `x-gateway-config` header) validated and compiled once per distinct string;
 * later requests with the same string reuse the result, errors included.
 */
export class InlineConfigCache {
  private readonly cache = new LRUCache<string, CompiledConfig | GatewayError>({
    max: 2000,
    maxSize: 32 * 1024 * 1024,
    sizeCalculation: (_v, k) => k.length + 64,
  });

  constructor(private readonly isKnownProvider: (name: string) => boolean) {}

  /** Compiles (or fetches) the config of a JSON string; throws 400 `invalid_config`. */
  get(json: string): CompiledConfig {
    let hit = this.cache.get(json);
    if (!hit) {
      hit = this.compile(json);
      this.cache.set(json, hit);
    }
    if (hit instanceof GatewayError) throw hit;
    return hit;
  }

  private compile(json: string): CompiledConfig | GatewayError {
    const value = tryParseJson(json);
    if (value === undefined) return new GatewayError('invalid_config', 'Invalid config: config is not valid JSON', { param: 'config' });
    try {
      return compileConfig(validateConfig(value, this.isKnownProvider));
    } catch (err) {
      if (err instanceof GatewayError) return err;
      throw err;
    }
  }
}
