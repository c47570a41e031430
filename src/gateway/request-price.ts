import { priceUsage, type RequestPrice } from '../pricing/price-usage.js';
import type { CompletedRequest } from './data-plane-hook.js';

const priced = new WeakMap<CompletedRequest, RequestPrice>();
const FREE: RequestPrice = Object.freeze({ cost: 0, unitPrices: null });

/**
 * The price of a finished data-plane request (`pricing/price-usage.ts`), computed once per request
 * however many readers ask (the request log, usage-limit settlement) and only when one asks. An answer
 * served from the cache, or no answer, costs nothing. `usage` replaces the answer's own usage (a
 * stream's estimated usage when the provider sent none).
 */
export function priceOfRequest(done: CompletedRequest, at: number, usage?: unknown): RequestPrice {
  if (usage === undefined) {
    const known = priced.get(done);
    if (known) return known;
  }
  const outcome = done.outcome;
  let price = FREE;
  if (outcome && outcome.cacheStatus !== 'HIT' && outcome.cacheStatus !== 'SEMANTIC HIT') {
    price = priceUsage({ provider: done.trace.provider, model: done.trace.model, answeredModel: outcome.model, usage: usage ?? done.usage, terms: done.trace.pricing, at });
  }
  if (usage === undefined) priced.set(done, price);
  return price;
}
