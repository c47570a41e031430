/**
 * default.webhook {webhookURL (alias url), headers, timeout (default 10000 ms), failOnError (default
 * false), policyId}: POSTs `{request: {json, text, model, endpoint}, response: {json, text,
 * statusCode} | null, eventType, metadata, policyId?}` to `webhookURL` through the injected CheckHttp
 * and expects a 2xx JSON answer `{verdict: boolean, data?, explanation?}`. A timeout, connection
 * error, non-2xx status or an answer without a boolean `verdict` passes when `failOnError` is false
 * (fail open) and fails when it is true; `error` then says why.
 */
import { isObject, tryParseJson } from '../../../foundation/lib/json.js';
import { BOTH_PHASES, NETWORK_CHECK_GRACE_MS, defineCheck, type CheckInput, type CheckResult } from '../check.js';
import { describeHttpError, readCapped, timeoutSignal } from '../check-http.js';
import { ParamReader } from '../params.js';

const MAX_ANSWER_BYTES = 1024 * 1024;

interface WebhookParams {
  url: string;
  headers: Record<string, string>;
  timeout: number;
  failOnError: boolean;
  policyId?: string;
}

function parseHeaders(p: ParamReader): Record<string, string> {
  let raw: unknown = p.params.headers;
  if (raw === undefined || raw === null) return {};
  if (typeof raw === 'string') raw = tryParseJson(raw);
  if (!isObject(raw)) p.fail('headers', 'must be an object of header names to string values');
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (typeof v !== 'string') p.fail(`headers.${k}`, 'must be a string');
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(k)) p.fail(`headers.${k}`, 'is not a valid header name');
    out[k.toLowerCase()] = v;
  }
  return out;
}

/** The JSON body sent to the webhook. */
export function webhookPayload(input: CheckInput, policyId?: string): Record<string, unknown> {
  const after = input.eventType === 'afterRequestHook';
  return {
    request: { json: input.request.body, text: input.requestText, model: input.request.model ?? null, endpoint: input.request.endpoint },
    response: after
      ? { json: input.response?.body ?? null, text: input.responseText ?? '', statusCode: input.response?.status ?? null }
      : null,
    eventType: input.eventType,
    metadata: input.request.metadata,
    ...(policyId ? { policyId } : {}),
  };
}

/** A failure already described for `CheckResult.error`. */
class WebhookFailure extends Error {}

async function callWebhook(input: CheckInput, p: WebhookParams): Promise<{ verdict: boolean; data?: unknown; explanation?: string }> {
  if (!input.http) throw new WebhookFailure('no HTTP client available');
  const signal = timeoutSignal(p.timeout, input.signal);
  try {
    const res = await input.http({
      url: p.url,
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...p.headers },
      body: JSON.stringify(webhookPayload(input, p.policyId)),
      signal,
    });
    const read = await readCapped(res.body, MAX_ANSWER_BYTES);
    if (res.status < 200 || res.status > 299) throw new WebhookFailure(`webhook answered HTTP ${res.status}`);
    if (read.overflow) throw new WebhookFailure(`webhook answer larger than ${MAX_ANSWER_BYTES} bytes`);
    const answer = tryParseJson(read.data.toString('utf8'));
    if (!isObject(answer) || typeof answer.verdict !== 'boolean')
      throw new WebhookFailure('webhook answer is not JSON with a boolean "verdict"');
    return {
      verdict: answer.verdict,
      data: answer.data,
      explanation: typeof answer.explanation === 'string' ? answer.explanation : undefined,
    };
  } catch (err) {
    if (err instanceof WebhookFailure) throw err;
    throw new WebhookFailure(describeHttpError(err, p.timeout, signal));
  }
}

export const webhook = defineCheck({
  id: 'default.webhook',
  phases: BOTH_PHASES,
  reads: 'request',
  parse(params, path): WebhookParams {
    const p: ParamReader = new ParamReader(params, path);
    const name = p.has('webhookURL') || !p.has('url') ? 'webhookURL' : 'url';
    const url = p.string(name, { required: true, nonEmpty: true });
    if (!/^https?:\/\//i.test(url) || !URL.canParse(url)) p.fail(name, 'must be an http(s) URL');
    return {
      url,
      headers: parseHeaders(p),
      timeout: p.int('timeout', 10_000, 1, 600_000),
      failOnError: p.bool('failOnError', false),
      policyId: p.string('policyId'),
    };
  },
  budget: (p) => ({ ms: p.timeout + NETWORK_CHECK_GRACE_MS, failOpen: !p.failOnError }),
  async evaluate(input, params): Promise<CheckResult> {
    try {
      const answer = await callWebhook(input, params);
      return {
        verdict: answer.verdict,
        explanation: answer.explanation ?? `The webhook answered verdict ${answer.verdict}.`,
        data: answer.data,
      };
    } catch (err) {
      const message = (err as Error).message;
      return {
        verdict: !params.failOnError,
        error: message,
        explanation: `The webhook failed (${message}); failing ${params.failOnError ? 'closed' : 'open'}.`,
      };
    }
  },
});
