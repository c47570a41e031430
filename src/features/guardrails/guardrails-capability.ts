/**
 * The guardrails capability: stored guardrails (a runtime section; their admin resource is
 * `control-plane/resources/guardrails`), config
 * validation of guardrail items and hooks, the request-level hook (the root's input guardrails) and
 * the leaf interceptor (the rest, and every output guardrail). Network checks use the gateway's HTTP
 * client behind the custom-host SSRF guard.
 */
import type { Capability } from '../../data-plane/pipeline/capability.js';
import { addConfigValidator } from '../../routing/validate-config.js';
import { CustomHostGuard } from '../../routing/custom-host-guard.js';
import { checkHttpFrom } from './check-http.js';
import { guardedCheckHttp } from './guarded-check-http.js';
import { GuardrailEngine } from './guardrail-engine.js';
import { guardrailsSection } from './guardrails-section.js';
import { validateGuardrailConfig } from './validate-guardrail-config.js';

// Validators are process-wide: register once, whatever the number of gateways built.
addConfigValidator(validateGuardrailConfig);

export const guardrailsCapability: Capability = {
  name: 'guardrails',
  create(core) {
    const engine = new GuardrailEngine({
      runtime: core.runtime,
      http: guardedCheckHttp(checkHttpFrom(core.http), new CustomHostGuard(core.http.outbound)),
      logger: core.logger,
      now: () => core.clock.now(),
    });
    return {
      sections: [guardrailsSection(core.secrets, core.logger)],
      hooks: [{ name: 'guardrails', before: (dp) => engine.beforeRouting(dp) }],
      interceptors: [(call, next) => engine.intercept(call, next)],
    };
  },
};
