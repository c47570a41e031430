import { describe, expect, it } from 'vitest';
import type { CheckInput } from '../check.js';
import { detectPii, ibanValid, luhnValid, PII_CATEGORIES } from '../pii-detect.js';
import { after, before } from '../test-support.js';
import { pii } from './pii.js';

const ALL = new Set(PII_CATEGORIES);
const categoriesIn = (text: string) => detectPii(text, ALL).map((m) => m.category);

describe('PII detectors', () => {
  it('validates checksums', () => {
    expect(luhnValid('4111111111111111')).toBe(true);
    expect(luhnValid('4111111111111112')).toBe(false);
    expect(ibanValid('GB82WEST12345698765432')).toBe(true);
    expect(ibanValid('GB82WEST12345698765433')).toBe(false);
    expect(ibanValid('DE89370400440532013000')).toBe(true);
  });

  it('detects each category', () => {
    expect(categoriesIn('mail ada@example.co.uk now')).toEqual(['EMAIL_ADDRESS']);
    expect(categoriesIn('card 4111 1111 1111 1111 ok')).toEqual(['CREDIT_CARD']);
    expect(categoriesIn('iban GB82 WEST 1234 5698 7654 32 ok')).toEqual(['IBAN']);
    expect(categoriesIn('ssn 123-45-6789')).toEqual(['US_SSN']);
    expect(categoriesIn('nino AB 12 34 56 C and JG123456A')).toEqual(['UK_NINO', 'UK_NINO']);
    expect(categoriesIn('call +44 20 7946 0958 or (415) 555-2671')).toEqual(['PHONE_NUMBER', 'PHONE_NUMBER']);
  });

  it('ignores look-alikes: failed checksums, dates, short numbers, invalid SSN ranges', () => {
    expect(categoriesIn('card 4111 1111 1111 1112')).not.toContain('CREDIT_CARD');
    expect(categoriesIn('on 2024-01-15 at 10:30 we sold 1,234 units, order 98765')).toEqual([]);
    expect(categoriesIn('ssn 000-12-3456 and 666-12-3456')).not.toContain('US_SSN');
    expect(categoriesIn('GB82WEST12345698765433')).not.toContain('IBAN');
    expect(categoriesIn('example NINO QQ 12 34 56 C')).toEqual([]);
  });
});

describe('default.pii', () => {
  it('passes on clean text and fails when PII is found, without putting values in data', async () => {
    expect((await pii.run(before('hello there'), {})).verdict).toBe(true);
    const r = await pii.run(before('write to ada@example.com'), {});
    expect(r.verdict).toBe(false);
    expect(r.data).toEqual({ detected: [{ category: 'EMAIL_ADDRESS', count: 1 }], redacted: false });
    expect(JSON.stringify(r)).not.toContain('ada@example.com');
    expect(r.transformed).toBeUndefined();
  });

  it('limits detection to the given categories (aliases accepted)', async () => {
    const text = 'ada@example.com, card 4111111111111111';
    const r = await pii.run(before(text), { categories: ['cards'] });
    expect(r.data).toMatchObject({ detected: [{ category: 'CREDIT_CARD', count: 1 }] });
    expect((await pii.run(before('ada@example.com'), { categories: ['PHONE_NUMBER'] })).verdict).toBe(true);
  });

  it('redacts every message of the request body with stable numbered placeholders', async () => {
    const input: CheckInput = {
      eventType: 'beforeRequestHook',
      requestText: 'mail bob@example.com and ada@example.com',
      request: {
        endpoint: 'chat',
        metadata: {},
        body: {
          model: 'm',
          messages: [
            { role: 'system', content: 'Owner: ada@example.com' },
            {
              role: 'user',
              content: [
                { type: 'text', text: 'mail bob@example.com and ada@example.com' },
                { type: 'image_url', image_url: { url: 'https://x.io/a.png' } },
              ],
            },
          ],
        },
      },
    };
    const r = await pii.run(input, { redact: true });
    expect(r.verdict).toBe(false);
    expect(r.data).toEqual({ detected: [{ category: 'EMAIL_ADDRESS', count: 3 }], redacted: true });
    expect(r.transformed?.requestBody).toEqual({
      model: 'm',
      messages: [
        { role: 'system', content: 'Owner: [EMAIL_ADDRESS_1]' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'mail [EMAIL_ADDRESS_2] and [EMAIL_ADDRESS_1]' },
            { type: 'image_url', image_url: { url: 'https://x.io/a.png' } },
          ],
        },
      ],
    });
    expect(r.transformed?.requestText).toBe('mail [EMAIL_ADDRESS_2] and [EMAIL_ADDRESS_1]');
    expect((input.request.body.messages as Array<{ content: unknown }>)[0].content).toBe('Owner: ada@example.com');
  });

  it('redacts the response body and text after the request', async () => {
    const body = {
      id: 'c',
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: 'SSN 123-45-6789, card 4111-1111-1111-1111' }, finish_reason: 'stop' }],
    };
    const r = await pii.run(after('SSN 123-45-6789, card 4111-1111-1111-1111', body), { redact: true });
    expect(r.verdict).toBe(false);
    expect(r.transformed?.responseText).toBe('SSN [US_SSN_1], card [CREDIT_CARD_1]');
    expect(r.transformed?.responseBody).toMatchObject({ choices: [{ message: { content: 'SSN [US_SSN_1], card [CREDIT_CARD_1]' } }] });
  });

  it('redacts a streamed answer (text only, no body)', async () => {
    const r = await pii.run(after('IBAN DE89 3704 0044 0532 0130 00.'), { redact: true });
    expect(r.transformed).toEqual({ responseText: 'IBAN [IBAN_1].' });
  });

  it('rejects bad parameters', () => {
    expect(() => pii.validateParams({ categories: ['EMAIL_ADDRESS', 'DNA'] })).toThrow(
      /default\.pii\.categories\[1\]: unknown category "DNA"/,
    );
    expect(() => pii.validateParams({ redact: 'true' })).toThrow(/default\.pii\.redact: must be a boolean/);
    expect(() => pii.validateParams({ categories: [] })).toThrow(/categories: must be a non-empty array/);
  });
});
