import { createRequire } from 'node:module';
import { LRUCache } from 'lru-cache';
import type * as GenaiPrices from '@pydantic/genai-prices';
import type { ModelInfo, ModelPrice, Provider } from '@pydantic/genai-prices';

/**
 * The package's CommonJS build (`require` resolves to it): the same version and data as its ES module build,
 * minified, so it holds 1.8 MB of heap where the ES module build holds 3.3 MB (its unminified source, kept by V8
 * as a two-byte string for its em dashes, is 1.7 MB alone); measured in bench/README.md, session 12.
 */
const { calcPrice, findProvider, TieredPrices } = createRequire(import.meta.url)('@pydantic/genai-prices') as typeof GenaiPrices;
type TieredPrices = GenaiPrices.TieredPrices;

/**
 * The model catalogue: `@pydantic/genai-prices` (prices per unit, context windows, model-name
 * matching for every major provider, maintained by Pydantic and updated with each release). Lookups
 * are memoised by provider and model, so a request never scans the catalogue more than once per pair.
 */

/** One catalogue model as the gateway uses it. */
export interface CatalogueModel {
  /** The catalogue's provider id (`openai`, `aws`, `google`, ...). */
  providerId: string;
  /** The catalogue's model id (`gpt-4o`). */
  modelId: string;
  name?: string;
  contextWindow?: number;
  /** A provider holding this one model: later price lookups match one model, not the catalogue. */
  single: Provider;
}

/** Prices per unit of a model at one moment, tiers resolved; keys as in the catalogue (`input_mtok`: USD per 1M tokens). */
export type FlatPrices = Record<string, number>;

const NONE = Symbol('none');
const byProviderAndModel = new LRUCache<string, CatalogueModel | typeof NONE>({ max: 5000 });

function entryOf(found: { model: ModelInfo; provider: Provider }): CatalogueModel {
  return {
    providerId: found.provider.id,
    modelId: found.model.id,
    ...(found.model.name ? { name: found.model.name } : {}),
    ...(found.model.context_window ? { contextWindow: found.model.context_window } : {}),
    single: { id: found.provider.id, name: found.provider.name, api_pattern: found.provider.api_pattern, models: [found.model] },
  };
}

/**
 * The catalogue ids a gateway provider name may have: itself, then without a `-ai` / `-openai` suffix
 * (`fireworks-ai` → `fireworks`, `azure-openai` → `azure`). The catalogue maps aliases of its own
 * (`bedrock` → `aws`, `vertex-ai` → `google`).
 */
function candidateIds(provider: string): string[] {
  const out = [provider];
  const bare = provider.replace(/-(ai|openai)$/, '');
  if (bare !== provider) out.push(bare);
  return out;
}

function lookup(provider: string | undefined, model: string): CatalogueModel | undefined {
  if (provider === undefined) {
    const any = calcPrice({}, model);
    return any ? entryOf(any) : undefined;
  }
  for (const id of candidateIds(provider)) {
    if (!findProvider({ providerId: id, modelId: model })) continue;
    const found = calcPrice({}, model, { providerId: id });
    if (found) return entryOf(found);
  }
  return undefined;
}

/**
 * The catalogue's model for a gateway provider name (`openai`, `bedrock`, `together-ai`, ...) and a
 * model id as sent upstream; undefined when the catalogue does not price it (a self-hosted model). With
 * no provider, the model is matched by name across the catalogue (the first provider that claims it).
 */
export function catalogueModel(provider: string | undefined, model: string): CatalogueModel | undefined {
  const key = `${provider ?? ''}\n${model}`;
  const hit = byProviderAndModel.get(key);
  if (hit !== undefined) return hit === NONE ? undefined : hit;
  let found: CatalogueModel | undefined;
  try {
    found = lookup(provider, model);
  } catch {
    found = undefined;
  }
  byProviderAndModel.set(key, found ?? NONE);
  return found;
}

/** The context window (tokens) the catalogue gives a model, matched by name alone; undefined when it has none. */
export function catalogueContextWindow(model: string): number | undefined {
  return catalogueModel(undefined, model)?.contextWindow;
}

function tierPrice(p: TieredPrices, inputTokens: number): number {
  let price = p.base;
  for (const t of [...p.tiers].sort((a, b) => a.start - b.start)) if (inputTokens > t.start) price = t.price;
  return price;
}

/**
 * A model's prices at time `at` (the catalogue's dated and time-of-day prices resolved) for a request
 * of `inputTokens` input tokens (tiered prices resolved: a tier applies when the input exceeds its start).
 */
export function pricesAt(m: CatalogueModel, inputTokens: number, at: number): FlatPrices {
  let fixed = fixedPrices.get(m);
  if (fixed === undefined) {
    fixed = fixedPricesOf(m);
    fixedPrices.set(m, fixed);
  }
  if (fixed !== null) return fixed;
  const found = calcPrice({}, m.modelId, { provider: m.single, timestamp: new Date(at) });
  const prices: ModelPrice = found?.model_price ?? {};
  const out: FlatPrices = {};
  for (const [k, v] of Object.entries(prices)) {
    if (typeof v === 'number') out[k] = v;
    else if (v instanceof TieredPrices || (typeof v === 'object' && v !== null && 'base' in v))
      out[k] = tierPrice(v as TieredPrices, inputTokens);
  }
  return out;
}

/**
 * A model's prices when they depend neither on the moment (no dated or time-of-day conditions) nor on
 * the request's size (no tiers): most models. Frozen, shared by every request; null otherwise.
 */
const fixedPrices = new WeakMap<CatalogueModel, FlatPrices | null>();

function fixedPricesOf(m: CatalogueModel): FlatPrices | null {
  const prices = m.single.models[0]?.prices;
  if (prices === undefined || Array.isArray(prices)) return null;
  const out: FlatPrices = {};
  for (const [k, v] of Object.entries(prices)) {
    if (typeof v === 'number') out[k] = v;
    else if (v !== undefined && v !== null) return null;
  }
  return Object.freeze(out);
}

/** The catalogue's models of a gateway provider (for `GET /v1/models`); empty when it has none. */
export function catalogueModelsOf(provider: string): ModelInfo[] {
  for (const id of candidateIds(provider)) {
    const p = findProvider({ providerId: id });
    if (p && (p.id === id || id === provider)) return p.models.filter((m) => !m.deprecated);
  }
  return [];
}
