import { Type, type Static } from 'typebox';
import type { Kysely } from 'kysely';
import type { Database } from '../../../infra/store/schema.js';

/** How far back the creation of a cost budget looks for traffic of models without a price. */
export const UNPRICED_LOOKBACK_MS = 7 * 24 * 3600 * 1000;
/** At most this many models are named in the warning. */
const MAX_NAMED = 10;

/** One warning of a create's answer: advice, the write itself succeeded. */
export const PolicyWarning = Type.Object({
  code: Type.Literal('unpriced_models'),
  message: Type.String(),
  models: Type.Array(Type.String()),
});
export type PolicyWarningView = Static<typeof PolicyWarning>;

/**
 * The warnings of a new `cost` budget in a workspace: models that answered there (2xx, with tokens) in
 * the last 7 days at a cost of 0 — models the gateway has no price for (self-hosted or unknown ones) —
 * since a cost budget counts them as $0 and would never trigger on their traffic. Empty when there is
 * no such traffic, and for other limit types.
 */
export async function unpricedModelWarnings(
  db: Kysely<Database>,
  workspaceId: string,
  type: string,
  now: number,
): Promise<PolicyWarningView[]> {
  if (type !== 'cost') return [];
  const rows = await db
    .selectFrom('request_logs')
    .select('model')
    .distinct()
    .where('workspace_id', '=', workspaceId)
    .where('created_at', '>=', now - UNPRICED_LOOKBACK_MS)
    .where('status', '>=', 200)
    .where('status', '<', 300)
    .where('total_tokens', '>', 0)
    .where('cost', '=', 0)
    .where('model', 'is not', null)
    .orderBy('model')
    .limit(MAX_NAMED)
    .execute();
  const models = rows.map((r) => r.model!).filter(Boolean);
  if (models.length === 0) return [];
  return [
    {
      code: 'unpriced_models',
      message: `These models answered in this workspace in the last 7 days but have no price, so this cost budget counts their requests as $0: ${models.join(', ')}. Give them prices (pricing_config of the integration's models, see docs/pricing.md) or add a tokens budget.`,
      models,
    },
  ];
}
