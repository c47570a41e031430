import { Type, type Static } from 'typebox';

/**
 * A per-model price override (`pricing_config` of an integration model): US dollars per million
 * tokens, in the catalogue's own unit names. Any subset: a key left out keeps the catalogue's price
 * (or, for a model the catalogue does not know, costs nothing; cache prices default to the input price).
 */
export const PriceConfigSchema = Type.Object(
  {
    input_mtok: Type.Optional(Type.Number({ minimum: 0 })),
    output_mtok: Type.Optional(Type.Number({ minimum: 0 })),
    cache_read_mtok: Type.Optional(Type.Number({ minimum: 0 })),
    cache_write_mtok: Type.Optional(Type.Number({ minimum: 0 })),
    output_reasoning_mtok: Type.Optional(Type.Number({ minimum: 0 })),
  },
  { additionalProperties: false },
);

/** A validated `pricing_config`. */
export type PriceConfig = Static<typeof PriceConfigSchema>;

/** The price keys the gateway computes with (the token units of the catalogue). */
export const PRICE_KEYS = ['input_mtok', 'output_mtok', 'cache_read_mtok', 'cache_write_mtok', 'output_reasoning_mtok'] as const;

/** One model's pricing terms within an integration: its override and the catalogue model it is priced as. */
export interface ModelPricing {
  override?: PriceConfig;
  /** `base_model_slug` of a custom model: the catalogue model its price comes from. */
  baseModel?: string;
}

/**
 * What an integration says about prices, carried by each of its providers into the snapshot:
 * `pricing_adjustments.multiplier` and the per-model terms of its `integration-models`.
 */
export interface PricingTerms {
  multiplier?: number;
  models?: ReadonlyMap<string, ModelPricing>;
}
