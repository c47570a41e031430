import { priceUsage, type RequestPrice } from '../../infra/pricing/price-usage.js';
import type { CompletedRequest } from './data-plane-hook.js';

const FREE: RequestPrice = Object.freeze({ cost: 0, unitPrices: null });

/**
 * The price of a finished data-plane request (`infra/pricing/price-usage.ts`), computed once per request
 * however many readers ask (the request log, usage-limit settlement) and only when one asks. An answer
 * served from the cache, or no answer, costs nothing. `usage` replaces the answer's own usage (a
 * stream's estimated usage when the provider sent none). Kept on the request's `price` (a property, not a
 * WeakMap entry: a WeakMap set per request cost ~1.3k instructions and an ephemeron for the GC to trace).
 */
export function priceOfRequest(done: CompletedRequest, at: number, usage?: unknown): RequestPrice {
  if (usage === undefined) {
    const known = done.price;
    if (known) return known;
  }
  const outcome = done.outcome;
  let price = FREE;
  if (outcome && outcome.cacheStatus !== 'HIT' && outcome.cacheStatus !== 'SEMANTIC HIT') {
    price = priceUsage({
      provider: done.trace.provider,
      model: done.trace.model,
      answeredModel: outcome.model,
      usage: usage ?? done.usage,
      terms: done.trace.pricing,
      at,
    });
  }
  if (usage === undefined) done.price = price;
  return price;
}
