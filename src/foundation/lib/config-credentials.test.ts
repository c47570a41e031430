import { describe, expect, it } from 'vitest';
import { SecretBox, isSealed } from './secret-box.js';
import {
  hasPlainConfigCredentials,
  keepMaskedConfigCredentials,
  leftoverHintPath,
  maskConfigCredentials,
  maskConfigItem,
  openConfigCredentials,
  sealConfigCredentials,
} from './config-credentials.js';

const box = new SecretBox(Buffer.alloc(32, 5));
const KEY = 'sk-config-credential-0001';

describe('config credentials', () => {
  it('seals credential members at every depth and leaves other members, override_params included, as they are', () => {
    const config = {
      retry: { attempts: 1 },
      strategy: { mode: 'fallback' },
      targets: [
        { provider: 'openai', api_key: KEY, override_params: { max_tokens: 5, model: 'm' }, forward_headers: ['x-token'] },
        { strategy: { mode: 'single' }, targets: [{ provider: 'openai', Authorization: `Bearer ${KEY}`, virtual_key: 'vk' }] },
      ],
      before_request_hooks: [
        {
          id: 'h',
          checks: [
            {
              id: 'default.webhook',
              parameters: { webhookURL: 'https://h.example', headers: JSON.stringify({ 'X-Api-Key': 'hook-secret-value' }), timeout: 100 },
            },
          ],
        },
      ],
    };
    const sealed = sealConfigCredentials(box, 'cfg-1', config) as Record<string, any>;
    const text = JSON.stringify(sealed);
    expect(text).not.toContain(KEY);
    expect(text).not.toContain('hook-secret-value');
    expect(isSealed(sealed.targets[0].api_key.sealed)).toBe(true);
    expect(sealed.targets[0].override_params).toEqual({ max_tokens: 5, model: 'm' });
    expect(sealed.targets[1].targets[0].virtual_key).toBe('vk');
    expect(hasPlainConfigCredentials(sealed)).toBe(false);
    expect(hasPlainConfigCredentials(config)).toBe(true);
    // Idempotent, and bound to the config: another id does not open it.
    expect(sealConfigCredentials(box, 'cfg-1', sealed)).toEqual(sealed);
    expect(() => openConfigCredentials(box, 'cfg-2', sealed)).toThrow();
    const opened = openConfigCredentials(box, 'cfg-1', sealed) as Record<string, any>;
    expect(opened.targets).toEqual(config.targets);
    expect(opened.before_request_hooks[0].checks[0].parameters.headers).toEqual({ 'X-Api-Key': 'hook-secret-value' });
  });

  it('masks with hints, also plaintext values and guardrail items', () => {
    const masked = maskConfigCredentials({
      provider: 'openai',
      api_key: KEY,
      cloud2_service_account_json: { private_key: 'pk-123456789012' },
    }) as Record<string, unknown>;
    expect(masked.api_key).toBe('sk-…0001');
    expect(JSON.stringify(masked)).not.toContain('pk-123456789012');
    const item = maskConfigItem('input_guardrails', {
      'default.webhook': { webhookURL: 'https://h.example', headers: { authorization: `Bearer ${KEY}` } },
    });
    expect(item).toEqual({ 'default.webhook': { webhookURL: 'https://h.example', headers: { authorization: 'Bea…0001' } } });
  });

  it('restores hints sent back at their path or, when unambiguous, by name; anything else is a new value', () => {
    const stored = {
      strategy: { mode: 'loadbalance' },
      targets: [
        { provider: 'openai', api_key: 'sk-aaaaaaaaaaaa-1111' },
        { provider: 'openai', api_key: 'sk-bbbbbbbbbbbb-1111' },
        { provider: 'openai', api_key: 'sk-cccccccccccc-2222' },
      ],
    };
    const masked = maskConfigCredentials(stored) as typeof stored;
    expect(keepMaskedConfigCredentials(stored, masked)).toEqual(stored);
    // Moved: the third target's hint is unique, so it is found at its new place.
    const moved = { ...masked, targets: [{ ...masked.targets[2]! }, { ...masked.targets[2]! }] };
    expect((keepMaskedConfigCredentials(stored, moved) as typeof stored).targets.map((t) => t.api_key)).toEqual([
      'sk-cccccccccccc-2222',
      'sk-cccccccccccc-2222',
    ]);
    // At a path with no stored member, a hint two stored members share is ambiguous: kept as sent.
    const added = { ...masked, targets: [...masked.targets, { ...masked.targets[0]! }] };
    expect((keepMaskedConfigCredentials(stored, added) as typeof stored).targets.map((t) => t.api_key)).toEqual([
      'sk-aaaaaaaaaaaa-1111',
      'sk-bbbbbbbbbbbb-1111',
      'sk-cccccccccccc-2222',
      'sk-…1111',
    ]);
    expect(leftoverHintPath(keepMaskedConfigCredentials(stored, added))).toBe('config.targets[3].api_key');
    expect(leftoverHintPath(keepMaskedConfigCredentials(stored, masked))).toBeUndefined();
    expect(leftoverHintPath({ provider: 'openai', api_key: 'sk-…' })).toBeUndefined();
    expect(leftoverHintPath({ provider: 'openai', api_key: '…' })).toBe('config.api_key');
    const fresh = { ...masked, targets: [{ provider: 'openai', api_key: 'sk-new-value-000000' }] };
    expect(keepMaskedConfigCredentials(stored, fresh)).toEqual(fresh);
  });
});
