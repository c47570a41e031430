import { catalogueModel, pricesAt, type CatalogueModel, type FlatPrices } from './catalogue.js';
import { PRICE_KEYS, type PricingTerms } from './price-config.js';
import { readTokenUsage, type TokenUsage } from './token-usage.js';

/**
 * The unit prices a cost was computed with, as stored on the request-log row (so a later price change
 * does not rewrite history): USD per million tokens by catalogue unit, the integration's multiplier,
 * and where the prices came from.
 */
export interface UnitPrices {
  input_mtok?: number;
  output_mtok?: number;
  cache_read_mtok?: number;
  cache_write_mtok?: number;
  output_reasoning_mtok?: number;
  multiplier: number;
  /** `catalogue`, `pricing_config` (an integration model's override, over the catalogue's prices when it has any) or `provider` (the provider's own `usage.cost`). */
  source: 'catalogue' | 'pricing_config' | 'provider';
  /** The catalogue model priced (`gpt-4o`), when the catalogue had one. */
  catalogue_model?: string;
}

/** The price of one request: its cost in US dollars, the unit prices used (null when none applied) and its token counts. */
export interface RequestPrice {
  cost: number;
  unitPrices: UnitPrices | null;
  tokens?: TokenUsage;
}

/** What a request's price depends on. */
export interface PriceInput {
  /** The gateway provider that answered (`openai`, `bedrock`, ...). */
  provider: string | undefined;
  /** The model sent upstream. */
  model: string | undefined;
  /** The model the provider says answered (`gpt-4o-2024-08-06`), when it says. */
  answeredModel?: string;
  /** The answer's usage object, any shape `readTokenUsage` reads. */
  usage: unknown;
  terms?: PricingTerms;
  /** Milliseconds since the epoch: the moment whose prices apply. */
  at: number;
}

const FREE: RequestPrice = Object.freeze({ cost: 0, unitPrices: null });

/**
 * Dollars for token counts at unit prices (per million): uncached input, cache reads and cache writes
 * (at the input price when the model has no cache price), output, and reasoning (part of the output,
 * at its own price only when one is set).
 */
export function costOf(t: TokenUsage, p: FlatPrices): number {
  const input = p.input_mtok ?? 0;
  const cacheRead = Math.min(t.cacheRead, t.input);
  const cacheWrite = Math.min(t.cacheWrite, t.input - cacheRead);
  const uncached = t.input - cacheRead - cacheWrite;
  const reasoning = p.output_reasoning_mtok === undefined ? 0 : Math.min(t.reasoning, t.output);
  const micro =
    uncached * input +
    cacheRead * (p.cache_read_mtok ?? input) +
    cacheWrite * (p.cache_write_mtok ?? input) +
    (t.output - reasoning) * (p.output_mtok ?? 0) +
    reasoning * (p.output_reasoning_mtok ?? 0);
  return micro / 1_000_000;
}

function pick(p: FlatPrices): Partial<Record<(typeof PRICE_KEYS)[number], number>> {
  const out: Partial<Record<(typeof PRICE_KEYS)[number], number>> = {};
  for (const k of PRICE_KEYS) if (p[k] !== undefined) out[k] = p[k];
  return out;
}

/**
 * Prices one request: tokens × the model's unit prices × the integration's multiplier. Prices come
 * from the integration model's `pricing_config` over the catalogue's (the model's `base_model_slug`,
 * else the answered model, else the requested one); a model neither prices costs the provider's own
 * `usage.cost` when it reports one, else nothing. Catalogue lookups are memoised.
 */
export function priceUsage(input: PriceInput): RequestPrice {
  const tokens = readTokenUsage(input.usage);
  if (!tokens) return FREE;
  const multiplier = input.terms?.multiplier ?? 1;
  const terms = input.model === undefined ? undefined : input.terms?.models?.get(input.model);
  let found = terms?.baseModel ? catalogueModel(input.provider, terms.baseModel) : undefined;
  if (!found && input.answeredModel) found = catalogueModel(input.provider, input.answeredModel);
  if (!found && input.model) found = catalogueModel(input.provider, input.model);
  const catalogue = found ? pricesAt(found, tokens.input, input.at) : undefined;
  if (!catalogue && !terms?.override) {
    if (tokens.reportedCost === undefined) return { cost: 0, unitPrices: null, tokens };
    return { cost: tokens.reportedCost * multiplier, unitPrices: { multiplier, source: 'provider' }, tokens };
  }
  if (catalogue && !terms?.override && Object.isFrozen(catalogue)) {
    // The catalogue's fixed prices (most models): their unit prices are built once per multiplier.
    const unitPrices = fixedUnitPrices(catalogue, found!, multiplier);
    return { cost: costOf(tokens, catalogue) * multiplier, unitPrices, tokens };
  }
  const prices: FlatPrices = { ...catalogue, ...(terms?.override as FlatPrices | undefined) };
  const unitPrices: UnitPrices = {
    ...pick(prices),
    multiplier,
    source: terms?.override ? 'pricing_config' : 'catalogue',
    ...(found ? { catalogue_model: found.modelId } : {}),
  };
  return { cost: costOf(tokens, prices) * multiplier, unitPrices, tokens };
}

/** Unit prices of a catalogue model's fixed (frozen, shared) prices, by multiplier: frozen and shared too. */
const fixedUnits = new WeakMap<FlatPrices, Map<number, UnitPrices>>();

function fixedUnitPrices(catalogue: FlatPrices, found: CatalogueModel, multiplier: number): UnitPrices {
  let byMultiplier = fixedUnits.get(catalogue);
  if (!byMultiplier) fixedUnits.set(catalogue, (byMultiplier = new Map()));
  let unitPrices = byMultiplier.get(multiplier);
  if (!unitPrices) {
    unitPrices = Object.freeze({ ...pick(catalogue), multiplier, source: 'catalogue' as const, catalogue_model: found.modelId });
    if (byMultiplier.size < 64) byMultiplier.set(multiplier, unitPrices);
  }
  return unitPrices;
}

/** The JSON of shared (frozen) unit prices, remembered: the same text for every request priced by them. */
const unitPricesTexts = new WeakMap<UnitPrices, string>();

/**
 * Unit prices as the request log stores them (`JSON.stringify`). The frozen unit prices most requests share
 * (a catalogue model's fixed prices, `fixedUnitPrices`) are written once: writing a price turns each double into
 * its shortest decimal text, several thousand CPU instructions per request for the same few numbers.
 */
export function unitPricesJson(unitPrices: UnitPrices): string {
  if (!Object.isFrozen(unitPrices)) return JSON.stringify(unitPrices);
  let text = unitPricesTexts.get(unitPrices);
  if (text === undefined) unitPricesTexts.set(unitPrices, (text = JSON.stringify(unitPrices)));
  return text;
}

/**
 * The list price of a model (for `GET /v1/models`): its unit prices now, at the base tier, with the
 * integration's override and multiplier; undefined when neither the catalogue nor an override prices it.
 */
export function listPrice(
  provider: string | undefined,
  model: string,
  terms: PricingTerms | undefined,
  at: number,
): UnitPrices | undefined {
  const own = terms?.models?.get(model);
  const found = catalogueModel(provider, own?.baseModel ?? model);
  if (!found && !own?.override) return undefined;
  const prices: FlatPrices = { ...(found ? pricesAt(found, 0, at) : {}), ...(own?.override as FlatPrices | undefined) };
  return {
    ...pick(prices),
    multiplier: terms?.multiplier ?? 1,
    source: own?.override ? 'pricing_config' : 'catalogue',
    ...(found ? { catalogue_model: found.modelId } : {}),
  };
}
