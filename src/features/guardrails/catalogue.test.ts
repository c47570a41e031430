import { describe, expect, it } from 'vitest';
import { CHECKS, getCheck, isCheckId, runCheck, validateCheck } from './catalogue.js';
import { before, thrown } from './test-support.js';

const ISSUE_7_IDS = [
  'default.regexMatch',
  'default.contains',
  'default.wordCount',
  'default.sentenceCount',
  'default.characterCount',
  'default.jsonSchema',
  'default.jsonKeys',
  'default.validUrls',
  'default.containsCode',
  'default.endsWith',
  'default.allUppercase',
  'default.allLowercase',
  'default.modelWhitelist',
  'default.allowedRequestTypes',
  'default.notNull',
  'default.requiredMetadataKeys',
  'default.requiredMetadataKeyPairs',
  'default.pii',
  'default.inlineImage',
  'default.webhook',
];

describe('guardrail catalogue', () => {
  it('registers exactly the issue 7 checks under their ids', () => {
    expect(Object.keys(CHECKS).sort()).toEqual([...ISSUE_7_IDS].sort());
    for (const id of ISSUE_7_IDS) expect(getCheck(id)?.id).toBe(id);
    expect(isCheckId('deny')).toBe(false);
    expect(getCheck('toString')).toBeUndefined();
  });

  it('marks pii as the mutator and restricts phases', () => {
    expect(
      Object.values(CHECKS)
        .filter((c) => c.mutator)
        .map((c) => c.id),
    ).toEqual(['default.pii']);
    expect(CHECKS['default.notNull'].phases).toEqual(['afterRequestHook']);
    expect(CHECKS['default.requiredMetadataKeyPairs'].phases).toEqual(['beforeRequestHook']);
    expect(CHECKS['default.inlineImage'].phases).toEqual(['beforeRequestHook']);
  });

  it('validateCheck names the path for unknown ids, bad params and unsupported events', () => {
    expect(thrown(() => validateCheck('default.nope', {}, 'config.input_guardrails[0]'))).toMatchObject({
      code: 'invalid_config',
      param: 'config.input_guardrails[0]',
      message: 'config.input_guardrails[0]: unknown guardrail check "default.nope"',
    });
    expect(thrown(() => validateCheck('default.contains', { words: 'x' }, 'config.input_guardrails[0]["default.contains"]'))).toMatchObject(
      {
        param: 'config.input_guardrails[0]["default.contains"].words',
      },
    );
    expect(() => validateCheck('default.notNull', {}, 'p', 'beforeRequestHook')).toThrow(/cannot run in beforeRequestHook/);
    expect(() => validateCheck('default.contains', { operator: 'none', words: ['secret'] })).not.toThrow();
  });

  it('runCheck returns an outcome with id and timing, and never throws', async () => {
    const ok = await runCheck('default.contains', before('a secret'), { operator: 'none', words: ['secret'] });
    expect(ok).toMatchObject({ id: 'default.contains', verdict: false });
    expect(typeof ok.execution_time).toBe('number');
    expect(await runCheck('default.nope', before('x'), {})).toMatchObject({
      verdict: false,
      error: 'unknown guardrail check "default.nope"',
    });
    expect(await runCheck('default.contains', before('x'), { words: 5 })).toMatchObject({
      verdict: false,
      error: expect.stringMatching(/words/),
    });
  });
});
