/**
 * The production scenario's setup, shared by the load runner (run.mjs) and the instruction gate
 * (instructions.mjs): what our production instance serves with, created through its admin API.
 */
import { request } from 'undici';
import { PRODUCTION_POLICY, PRODUCTION_USAGE_LIMIT, PRODUCTION_USER, PRODUCTION_USER_KEY } from './scenarios.mjs';

/** One admin call on our production instance; returns status and parsed body. */
async function admin(ours, method, path, body) {
  const res = await request(`${ours.origin}${path}`, {
    method,
    headers: { 'content-type': 'application/json', 'x-gateway-api-key': ours.adminKey },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, text, json };
}

/**
 * What the production instance serves with, created through its admin API: a rate-limit policy, a user
 * who is a member of the default workspace and that user's `workspace-user` key (the key the scenario's
 * requests carry), and a usage-limit policy (a cost budget it never reaches) matching those requests.
 * Returns why it could not be set up, or null.
 */
export async function setupProduction(ours) {
  const steps = [
    ['POST', '/v1/policies/rate-limits', () => PRODUCTION_POLICY],
    ['POST', '/v1/users', () => PRODUCTION_USER],
    ['POST', '/v1/api-keys', (made) => ({ ...PRODUCTION_USER_KEY, user_id: made['/v1/users'].id })],
    ['POST', '/v1/policies/usage-limits', () => PRODUCTION_USAGE_LIMIT],
  ];
  const made = {};
  for (const [method, path, body] of steps) {
    const res = await admin(ours, method, path, body(made));
    if (res.status === 404) return `${method} ${path} answered 404 (not implemented yet)`;
    if (res.status >= 300) return `${method} ${path} answered ${res.status}: ${res.text.slice(0, 160)}`;
    made[path] = res.json;
  }
  const key = made['/v1/api-keys']?.key;
  if (typeof key !== 'string') return 'POST /v1/api-keys answered without the key value';
  ours.gatewayKey = key;
  return null;
}
