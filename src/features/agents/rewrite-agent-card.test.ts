import { describe, expect, it } from 'vitest';
import { gatewayAgentUrl, rewriteAgentCard } from './rewrite-agent-card.js';
import { cardUrl, validateCard } from './fetch-agent-card.js';

describe('gatewayAgentUrl / cardUrl: one slash between the parts', () => {
  it.each([
    ['https://gw.example.com', 'https://gw.example.com/v1/agents/echo'],
    ['https://gw.example.com/', 'https://gw.example.com/v1/agents/echo'],
    ['https://gw.example.com/ai', 'https://gw.example.com/ai/v1/agents/echo'],
    ['https://gw.example.com/ai//', 'https://gw.example.com/ai/v1/agents/echo'],
    ['http://127.0.0.1:8787?x=1', 'http://127.0.0.1:8787/v1/agents/echo'],
  ])('gateway base %s', (base, expected) => {
    expect(gatewayAgentUrl(base, 'echo')).toBe(expected);
  });

  it.each([
    ['http://a.example/team/agent', 'http://a.example/team/agent/.well-known/agent-card.json'],
    ['http://a.example/team/agent/', 'http://a.example/team/agent/.well-known/agent-card.json'],
    ['http://a.example', 'http://a.example/.well-known/agent-card.json'],
    ['http://a.example/rpc?tenant=x', 'http://a.example/rpc/.well-known/agent-card.json'],
  ])('card of %s', (url, expected) => {
    expect(cardUrl(url, '.well-known/agent-card.json')).toBe(expected);
  });
});

describe('rewriteAgentCard', () => {
  const at = 'https://gw.example.com/v1/agents/echo';

  it('v1.0: JSON-RPC interfaces at the gateway (one per version), other bindings and signatures dropped', () => {
    const card = {
      name: 'A',
      supportedInterfaces: [
        { url: 'https://agent.example/a2a/v1', protocolBinding: 'JSONRPC', tenant: 't', protocolVersion: '1.0' },
        { url: 'https://other-host.example/rpc', protocolBinding: 'jsonrpc', tenant: 't', protocolVersion: '1.0' },
        { url: 'https://agent.example/grpc', protocolBinding: 'GRPC', tenant: '', protocolVersion: '1.0' },
        { url: 'https://agent.example/a2a/v1', protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '0.3' },
      ],
      capabilities: { streaming: true, extendedAgentCard: true },
      skills: [{ id: 'a' }, { id: 'b' }],
      signatures: [{ protected: 'x', signature: 'y' }],
    };
    const out = rewriteAgentCard(card, at, ['b']);
    expect(out.supportedInterfaces).toEqual([
      { url: at, protocolBinding: 'JSONRPC', tenant: 't', protocolVersion: '1.0' },
      { url: at, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '0.3' },
    ]);
    expect(out).not.toHaveProperty('signatures');
    expect(out.capabilities).toEqual({ streaming: true, extendedAgentCard: false });
    expect(out.skills).toEqual([{ id: 'b' }]);
    expect(card.signatures).toHaveLength(1);
  });

  it('v0.3: url and JSON-RPC additional interfaces at the gateway', () => {
    const out = rewriteAgentCard(
      {
        name: 'A',
        url: 'https://agent.example/grpc',
        preferredTransport: 'GRPC',
        additionalInterfaces: [
          { url: 'https://agent.example/rpc', transport: 'JSONRPC' },
          { url: 'https://agent.example/rest', transport: 'HTTP+JSON' },
        ],
        supportsAuthenticatedExtendedCard: true,
      },
      at,
      null,
    );
    expect(out).toMatchObject({
      url: at,
      preferredTransport: 'JSONRPC',
      additionalInterfaces: [{ url: at, transport: 'JSONRPC' }],
      supportsAuthenticatedExtendedCard: false,
    });
  });

  it('refuses a card without a JSON-RPC interface (502)', () => {
    expect(() => rewriteAgentCard({ name: 'A', url: 'https://agent.example/grpc', preferredTransport: 'GRPC' }, at, null)).toThrow(
      /no JSON-RPC interface/,
    );
    expect(() => rewriteAgentCard({ name: 'A', supportedInterfaces: [{ url: 'x', protocolBinding: 'GRPC' }] }, at, null)).toThrow(
      /no JSON-RPC interface/,
    );
  });

  it('validateCard wants an object with a name and a URL', () => {
    expect(() => validateCard([], 'u')).toThrow(/not a JSON object/);
    expect(() => validateCard({ name: ' ', url: 'x' }, 'u')).toThrow(/no name/);
    expect(() => validateCard({ name: 'n', supportedInterfaces: [{}] }, 'u')).toThrow(/no URL/);
    expect(validateCard({ name: 'n', supportedInterfaces: [{ url: 'x' }] }, 'u')).toBeTruthy();
  });
});
