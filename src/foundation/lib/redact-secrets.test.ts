import { describe, expect, it } from 'vitest';
import { REDACTED, redactGatewayKeyPrefix, redactSecrets } from './redact-secrets.js';

describe('redactSecrets', () => {
  it('removes each known secret shape and keeps the words around it', () => {
    const cases: Array<[string, string]> = [
      ['Incorrect API key provided: sk-proj-AbCdEfGhIjKlMnOp1234.', `Incorrect API key provided: ${REDACTED}.`],
      ['invalid x-api-key sk-ant-api03-AbCdEfGhIjKl_mn-op', `invalid x-api-key ${REDACTED}`],
      [
        'The security token AKIAIOSFODNN7EXAMPLE is invalid; ASIAY34FZKBOKMUTVV7A too',
        `The security token ${REDACTED} is invalid; ${REDACTED} too`,
      ],
      ['API key not valid: AIzaSyA1234567890abcdefghijklmnopqrstuv', `API key not valid: ${REDACTED}`],
      ['Authorization: Bearer eyJhbGciOi.JIUzI1NiJ9-x_y', `Authorization: Bearer ${REDACTED}`],
      ['GET https://h.test/v1?api_key=hunter2&key=abc&x=1 failed', `GET https://h.test/v1?api_key=${REDACTED}&key=${REDACTED}&x=1 failed`],
      ['access_token=t0k3n; token=zzz', `access_token=${REDACTED}; token=${REDACTED}`],
    ];
    for (const [input, expected] of cases) expect(redactSecrets(input)).toBe(expected);
  });

  it('leaves ordinary messages alone', () => {
    const text =
      'The model `gpt-4o` does not exist or you do not have access to it (task-12 monkey business, masked key sk-proj-****1234).';
    expect(redactSecrets(text)).toBe(text);
  });

  it('removes the exact credentials it is given, ignoring values too short to be one', () => {
    expect(redactSecrets('bad key my-private-credential-42 (k)', ['my-private-credential-42', 'k', undefined])).toBe(
      `bad key ${REDACTED} (k)`,
    );
  });

  it('removes keys with the gateway key prefix once it is registered', () => {
    const key = 'gwtest_' + 'a1B2c3D4e5F6g7H8i9J0';
    expect(redactSecrets(`key ${key}`)).toBe(`key ${key}`);
    redactGatewayKeyPrefix('gwtest_');
    expect(redactSecrets(`key ${key}`)).toBe(`key ${REDACTED}`);
  });
});
