/**
 * SSRF protection for network checks (webhook, inlineImage): a CheckHttp that refuses URLs whose
 * host resolves to a non-public address (private, loopback, link-local, reserved, ...) unless the
 * host is in `TRUSTED_CUSTOM_HOSTS` — the same rule and guard as custom hosts. This is the early,
 * cached answer; the gateway's HTTP client applies the same policy again to the address it connects
 * to (DNS rebinding). A refusal rejects the call, so the check reports an error and fails open or
 * closed per its `failOnError`.
 */
import type { CustomHostGuard } from '../../routing/custom-host-guard.js';
import type { CheckHttp } from './check-http.js';

/** Wraps `http` so every call's URL passes `guard` first. */
export function guardedCheckHttp(http: CheckHttp, guard: Pick<CustomHostGuard, 'check'>): CheckHttp {
  return async (req) => {
    await guard.check(req.url);
    return http(req);
  };
}
