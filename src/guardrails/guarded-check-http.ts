/**
 * SSRF protection for network checks (webhook, inlineImage): a CheckHttp that refuses URLs whose
 * host resolves to a private, loopback or link-local address unless the host is in
 * `TRUSTED_CUSTOM_HOSTS` — the same rule and guard as custom hosts. A refusal rejects the call, so
 * the check reports an error and fails open or closed per its `failOnError`.
 */
import type { CustomHostGuard } from '../routing/custom-host-guard.js';
import type { CheckHttp } from './check-http.js';

export function guardedCheckHttp(http: CheckHttp, guard: Pick<CustomHostGuard, 'check'>): CheckHttp {
  return async (req) => {
    await guard.check(req.url);
    return http(req);
  };
}
