/**
 * The longest delay a Node.js timer honours: 2^31 − 1 ms (about 24.8 days). A longer `setTimeout`
 * fires after 1 ms instead, so every timeout a user or an operator sets (config `request_timeout`,
 * `cb_config.cooldown_interval`, the `x-gateway-request-timeout` header, upstream timeouts) is
 * refused above it.
 */
export const MAX_TIMEOUT_MS = 2_147_483_647;
