import { describe, expect, it } from 'vitest';
import type { Guardrail } from './guardrail-spec.js';
import { denialError, runGuardrails } from './run-guardrails.js';
import { after, before } from './test-support.js';

const g = (checks: Guardrail['checks'], over: Partial<Guardrail> = {}): Guardrail => ({
  id: 'g',
  path: 'p',
  event: 'beforeRequestHook',
  checks,
  denyOnFail: false,
  denyOnSuccess: false,
  async: false,
  ...over,
});
const contains = (words: string[]) => ({ id: 'default.contains', parameters: { operator: 'none', words } });

describe('runGuardrails', () => {
  it('a guardrail passes only when every check passes', async () => {
    const run = await runGuardrails([g([contains(['x']), contains(['hello'])])], before('hello world'));
    expect(run.results[0]).toMatchObject({ verdict: false, deny: false });
    expect(run.results[0]!.checks.map((c) => c.verdict)).toEqual([true, false]);
    expect(run).toMatchObject({ failed: true, denied: false });
  });

  it('deny follows denyOnFail on failure and denyOnSuccess on success', async () => {
    const failing = await runGuardrails([g([contains(['hello'])], { denyOnFail: true })], before('hello'));
    expect(failing).toMatchObject({ denied: true, failed: true });
    const passing = await runGuardrails([g([contains(['x'])], { denyOnSuccess: true })], before('hello'));
    expect(passing).toMatchObject({ denied: true, failed: false });
    const asyncFail = await runGuardrails([g([contains(['hello'])], { denyOnFail: true, async: true })], before('hello'));
    expect(asyncFail.denied).toBe(false);
  });

  it('records the feedback by verdict', async () => {
    const fb = { onFailFeedback: { value: -1 }, onSuccessFeedback: { value: 1 } };
    expect((await runGuardrails([g([contains(['x'])], fb)], before('ok'))).results[0]!.feedback).toEqual({ value: 1 });
    expect((await runGuardrails([g([contains(['ok'])], fb)], before('ok'))).results[0]!.feedback).toEqual({ value: -1 });
    expect((await runGuardrails([g([contains(['x'])])], before('ok'))).results[0]!.feedback).toBeNull();
  });

  it('mutators run first and later checks see the redacted request', async () => {
    const input = before('write to a@b.co');
    const run = await runGuardrails(
      [g([contains(['a@b.co'])], { id: 'plain' }), g([{ id: 'default.pii', parameters: { redact: true } }], { id: 'pii' })],
      input,
    );
    expect(run.results.map((r) => [r.id, r.verdict, r.transformed])).toEqual([
      ['plain', true, false],
      ['pii', false, true],
    ]);
    expect(run.requestBody).toEqual({ messages: [{ role: 'user', content: 'write to [EMAIL_ADDRESS_1]' }] });
    expect(JSON.stringify(run.results[1])).not.toContain('a@b.co');
    expect(input.request.body).toEqual({ messages: [{ role: 'user', content: 'write to a@b.co' }] });
  });

  it('rewrites the answer body after the request', async () => {
    const body = { choices: [{ index: 0, message: { role: 'assistant', content: 'mail x@y.io' } }] };
    const run = await runGuardrails(
      [g([{ id: 'default.pii', parameters: { redact: true } }], { event: 'afterRequestHook' })],
      after('mail x@y.io', body),
    );
    expect(run.responseBody).toEqual({ choices: [{ index: 0, message: { role: 'assistant', content: 'mail [EMAIL_ADDRESS_1]' } }] });
    expect(run.requestBody).toBeUndefined();
  });

  it('an unknown check fails closed instead of throwing', async () => {
    const run = await runGuardrails([g([{ id: 'default.gone', parameters: {} }])], before('x'));
    expect(run.results[0]!.checks[0]).toMatchObject({ verdict: false, error: expect.stringContaining('unknown') });
  });
});

describe('denialError', () => {
  it('is a 446 guardrail_denied carrying hook_results and naming the denying guardrails', () => {
    const results = {
      before_request_hooks: [
        { id: 'a', deny: true },
        { id: 'b', deny: false },
      ] as never,
      after_request_hooks: [],
    };
    const err = denialError(results, 'request');
    expect(err.status).toBe(446);
    expect(err.message).toContain('guardrail a');
    expect(err.toBody()).toMatchObject({ error: { code: 'guardrail_denied' }, hook_results: results });
  });
});
