import type { HttpClient } from '../../foundation/lib/http-client.js';
import { uuid } from '../../foundation/lib/ids.js';
import type { Logger } from '../../infra/observability/logger.js';
import type { CustomHostGuard } from '../../routing/custom-host-guard.js';
import { insertAuditEntry } from '../../infra/store/repos/audit-logs.js';
import type { Store } from '../../infra/store/store.js';

/** One group that first reached its policy's alert threshold in a window. */
export interface UsageAlert {
  organisationId: string;
  workspaceId: string;
  policyId: string;
  group: Record<string, string>;
  used: number;
  alertThreshold: number;
  creditLimit: number;
  windowStartedAt: number;
  at: number;
}

export interface UsageAlertDeps {
  store: Store;
  http: HttpClient;
  guard: CustomHostGuard;
  logger: Logger;
  /** GATEWAY_ALERT_WEBHOOK_URL, when set. */
  webhookUrl?: string;
}

const WEBHOOK_TIMEOUT_MS = 5_000;

/**
 * Sends a usage alert: one audit entry `usage_limit.alert` (actor `system`) and, when a webhook URL
 * is set, one POST `{policy_id, group, used, credit_limit, window_started_at}` to it through the
 * gateway's HTTP client, after the custom-host guard (a private address is refused unless trusted),
 * with a 5 s timeout. A failed POST is logged, not retried.
 */
export function createUsageAlerts(deps: UsageAlertDeps): (a: UsageAlert) => Promise<void> {
  return async (a) => {
    const windowStartedAt = new Date(a.windowStartedAt).toISOString();
    await insertAuditEntry(deps.store.db, {
      id: uuid(),
      created_at: a.at,
      organisation_id: a.organisationId,
      workspace_id: a.workspaceId,
      actor_type: 'system',
      actor_id: null,
      action: 'usage_limit.alert',
      resource_type: 'usage_limit_policy',
      resource_id: a.policyId,
      request_id: null,
      client_ip: null,
      details: {
        group: a.group,
        used: a.used,
        alert_threshold: a.alertThreshold,
        credit_limit: a.creditLimit,
        window_started_at: windowStartedAt,
      },
    });
    const url = deps.webhookUrl;
    if (!url) return;
    try {
      await deps.guard.check(url);
      const res = await deps.http.sendBuffered({
        url,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          policy_id: a.policyId,
          group: a.group,
          used: a.used,
          credit_limit: a.creditLimit,
          window_started_at: windowStartedAt,
        }),
        signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
        headersTimeout: WEBHOOK_TIMEOUT_MS,
      });
      if (res.status < 200 || res.status >= 300)
        deps.logger.warn({ status: res.status, policy: a.policyId }, 'usage-limit alert webhook answered with an error');
    } catch (err) {
      deps.logger.warn({ err: (err as Error)?.message ?? String(err), policy: a.policyId }, 'usage-limit alert webhook failed');
    }
  };
}
