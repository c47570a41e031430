import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import net from 'node:net';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';

/**
 * The bad-input sweep: every route of `/openapi.json` gets each class of bad input (bodies of wrong
 * types, unknown fields, invalid or empty JSON, huge strings, NUL bytes; path ids unknown, 10,000
 * characters long, with `%00` or a malformed `%zz`; bad query values; over-large headers). Every answer
 * must be a 4xx in the decisions.md shape (or a 2xx where the input happens to be valid), never a 5xx,
 * and the gateway must stay up.
 */

interface Schema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  minItems?: number;
  minimum?: number;
  minLength?: number;
  format?: string;
  pattern?: string;
  $ref?: string;
}

interface Operation {
  parameters?: Array<{ in: string; name: string }>;
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}

interface Probe {
  method: string;
  path: string;
  /** Raw body bytes; `undefined` sends none. */
  body?: string;
  contentType?: string;
  headers?: Record<string, string>;
  /** Statuses that are wrong for this probe although they are 4xx (a timeout over 2^31 firing at once: 408). */
  forbid?: number[];
  what: string;
}

interface Answer {
  status: number;
  contentType: string;
  text: string;
}

let gw: TestGateway;
let fake: FakeOpenAI;
const agent = new http.Agent({ keepAlive: true, maxSockets: 24 });
let routes: Array<{ method: string; template: string; op: Operation }> = [];
let components: Record<string, Schema> = {};

beforeAll(async () => {
  fake = await startFakeOpenAI();
  gw = await startGateway();
  const doc = (await (await gw.fetch('/openapi.json')).json()) as {
    paths: Record<string, Record<string, Operation>>;
    components?: { schemas?: Record<string, Schema> };
  };
  components = doc.components?.schemas ?? {};
  for (const [template, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      if (['get', 'post', 'put', 'patch', 'delete'].includes(method)) routes.push({ method: method.toUpperCase(), template, op });
    }
  }
});
afterAll(async () => {
  await gw?.close();
  await fake?.close();
  agent.destroy();
});

/** One request over node:http, so paths and bodies go on the wire exactly as written. */
function send(p: Probe): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'x-gateway-api-key': gw.adminKey, ...p.headers };
    if (p.body !== undefined) {
      headers['content-type'] = p.contentType ?? 'application/json';
      headers['content-length'] = String(Buffer.byteLength(p.body));
    }
    const req = http.request(gw.url + p.path, { method: p.method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          contentType: String(res.headers['content-type'] ?? ''),
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(p.body);
  });
}

/** A request whose headers exceed Node's limit, on a raw socket (clients refuse to send them). */
function sendHugeHeaders(method: string, path: string): Promise<Answer> {
  return new Promise((resolve) => {
    const socket = net.connect(Number(new URL(gw.url).port), '127.0.0.1', () =>
      socket.write(`${method} ${path} HTTP/1.1\r\nHost: x\r\nx-gateway-api-key: ${gw.adminKey}\r\nx-big: ${'b'.repeat(40_000)}\r\n\r\n`),
    );
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', () => {});
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', body = ''] = text.split('\r\n\r\n');
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0),
        contentType: /content-type: *([^\r\n]+)/i.exec(head)?.[1] ?? '',
        text: body,
      });
    });
  });
}

/**
 * A body shaped like the schema (required members, enum and const values, numbers at their minimum,
 * formats honoured) whose free strings are `text` and whose free objects are `object`, so the bad value
 * gets past validation to the code behind it.
 */
function sample(schema: Schema | undefined, text: string, object: () => unknown, depth = 0): unknown {
  if (!schema || depth > 8) return text;
  if (schema.$ref) return sample(components[schema.$ref.split('/').pop()!], text, object, depth + 1);
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  const alt = schema.anyOf ?? schema.oneOf ?? schema.allOf;
  if (alt && alt.length > 0) return sample(alt.find((a) => a.type !== 'null') ?? alt[0], text, object, depth + 1);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (type === 'object' || schema.properties) {
    if (!schema.properties || Object.keys(schema.properties).length === 0) return object();
    const out: Record<string, unknown> = {};
    for (const [name, sub] of Object.entries(schema.properties))
      if (schema.required?.includes(name) || depth === 0) out[name] = sample(sub, text, object, depth + 1);
    return out;
  }
  if (type === 'array')
    return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => sample(schema.items, text, object, depth + 1));
  if (type === 'integer' || type === 'number') return Math.max(schema.minimum ?? 1, 1);
  if (type === 'boolean') return true;
  if (schema.pattern) return `sweep${++counter}`;
  if (schema.format === 'uuid') return '00000000-0000-4000-8000-000000000000';
  if (schema.format === 'date-time') return '2026-01-01T00:00:00.000Z';
  if (schema.format === 'uri' || schema.format === 'url') return `https://example.com/${encodeURIComponent(text.slice(0, 100))}`;
  return schema.minLength && text.length < schema.minLength ? text.padEnd(schema.minLength, 'x') : text;
}

let counter = 0;
const DEEP = '__deep__';
/** JSON text of an object nested `levels` deep (built as text: JSON.stringify would recurse). */
const deepJson = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
/** A routing config whose fallback targets nest `levels` deep. */
const deepConfig = (levels: number) =>
  `${'{"strategy":{"mode":"fallback"},"targets":['.repeat(levels)}{"provider":"openai","api_key":"k"}${']}'.repeat(levels)}`;

const fill = (template: string, id: string) => template.replace(/\{[^}]+\}/g, id);
const UNKNOWN_ID = 'unknown-0000';

/** Every probe of one route. */
function probes(method: string, template: string, op: Operation): Probe[] {
  const out: Probe[] = [];
  const path = fill(template, UNKNOWN_ID);
  const target = { provider: 'openai', api_key: 'sk-sweep', custom_host: fake.url };
  const hasBody = method !== 'GET' && method !== 'DELETE';
  const schema = op.requestBody?.content?.['application/json']?.schema;
  const props = Object.keys((schema?.$ref ? components[schema.$ref.split('/').pop()!] : schema)?.properties ?? {});
  const shaped = (text: string, object: () => unknown = () => ({ k: text })) => JSON.stringify(sample(schema, text, object));
  const shapedWith = (json: string) =>
    shaped('deep', () => DEEP)
      .split(`"${DEEP}"`)
      .join(json);
  const all = (value: unknown) => JSON.stringify(Object.fromEntries(props.map((p) => [p, value])));
  if (hasBody || method === 'DELETE') {
    for (const [what, body] of [
      ['array body', '[]'],
      ['string body', '"text"'],
      ['number body', '42'],
      ['null body', 'null'],
      ['unknown fields', '{"zz_unknown_field":1,"__proto__":{"x":1}}'],
      ['invalid JSON', '{"a":'],
      ['empty JSON', ''],
      ['every field a number', all(12345)],
      ['every field an object', all({ a: { b: [] } })],
      ['every field a huge string', all('x'.repeat(30_000))],
      ['every field a string with NUL', all('a\u0000b')],
      ['every field a negative number', all(-1)],
      ['every field a number over 2^31', all(2 ** 31 + 1)],
      ['every field 1e308', all(1e308)],
      ['every field true', all(true)],
      ['every field nested 5,000 deep', `{${props.map((p) => `"${p}":${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`).join(',')}}`],
      ['nested 5,000 deep', `${'['.repeat(5_000)}${']'.repeat(5_000)}`],
      ['schema-shaped, strings with NUL', shaped('nul\u0000byte')],
      ['schema-shaped, strings of 100,000 characters', shaped('s'.repeat(100_000))],
      ['schema-shaped, strings with lone surrogates', shaped('\ud800x\udfff')],
      ['schema-shaped, free objects 1,000 deep', shapedWith(deepJson(1_000))],
      ['schema-shaped, free objects 10,000 deep', shapedWith(deepJson(10_000))],
      ['schema-shaped, free objects a config nested 3,000 deep', shapedWith(deepConfig(3_000))],
    ] as const) {
      out.push({ method, path, body, what, headers: { 'x-gateway-config': JSON.stringify(target) } });
    }
    out.push({ method, path, body: 'a=1', contentType: 'text/plain', what: 'text/plain body' });
  }
  if (template.includes('{')) {
    for (const [what, id] of [
      ['10,000-character id', 'i'.repeat(10_000)],
      ['id with %00', 'a%00b'],
      ['id of %00 only', '%00'],
      ['id with %zz', '%zz'],
      ['id with a bad UTF-8 escape', '%C3%28'],
    ] as const) {
      out.push({ method, path: fill(template, id), body: hasBody ? '{}' : undefined, what });
    }
  }
  const deep = deepConfig(300);
  for (const [what, headers, forbid] of [
    ['x-gateway-config not JSON', { 'x-gateway-config': '{"provider":' }, []],
    ['x-gateway-config nested 300 deep', { 'x-gateway-config': deep }, []],
    [
      'x-gateway-config request_timeout over 2^31',
      { 'x-gateway-config': JSON.stringify({ ...target, request_timeout: 2 ** 31 + 5 }) },
      [408],
    ],
    [
      'x-gateway-config retry and cooldown over 2^31',
      {
        'x-gateway-config': JSON.stringify({
          ...target,
          retry: { attempts: 2 ** 31 },
          cb_config: { failure_threshold: 2 ** 40, cooldown_interval: 2 ** 40 },
        }),
      },
      [],
    ],
    [
      'x-gateway-request-timeout over 2^31',
      {
        'x-gateway-request-timeout': String(2 ** 31 + 5),
        'x-gateway-provider': 'openai',
        'x-gateway-custom-host': fake.url,
        authorization: 'Bearer sk-sweep',
      },
      [408],
    ],
    ['x-gateway-metadata not an object', { 'x-gateway-metadata': '[1,{"a":{}}]' }, []],
    ['x-gateway-provider unknown', { 'x-gateway-provider': 'no-such-provider' }, []],
  ] as const) {
    out.push({
      method,
      path,
      body: hasBody
        ? '{"model":"m","messages":[{"role":"user","content":"x"}],"input":"x","prompt":"x","query":"q","documents":["d"]}'
        : undefined,
      headers,
      forbid: [...forbid],
      what,
    });
  }
  const query = (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
  if (query.length > 0) {
    for (const [what, value] of [
      ['query values -1', '-1'],
      ['query values not numbers', 'abc'],
      ['query values with %00', 'a%00'],
      ['query values with %zz', '%zz'],
      ['query values 5,000 characters', 'q'.repeat(5_000)],
      ['query values huge numbers', '99999999999999999999999'],
    ] as const) {
      out.push({ method, path: `${path}?${query.map((q) => `${q}=${value}`).join('&')}`, body: hasBody ? '{}' : undefined, what });
    }
    out.push({
      method,
      path: `${path}?${query.map((q) => `${q}[]=1&${q}=2`).join('&')}`,
      body: hasBody ? '{}' : undefined,
      what: 'query values repeated',
    });
  }
  return out;
}

/**
 * What is wrong with an answer, or `undefined` when it is a 2xx, or a 4xx in the decisions.md shape, or
 * a provider's own 5xx relayed with its status (decisions.md: the body names the `provider`; the fake
 * upstream may fail on a body the gateway rightly passed on).
 */
function problem(a: Answer, forbid: number[] = []): string | undefined {
  if (forbid.includes(a.status)) return `status ${a.status}`;
  if (a.status >= 200 && a.status < 300) return undefined;
  if (a.status < 400 || (a.status >= 500 && !fromProvider(a))) return `status ${a.status}`;
  if (!a.contentType.startsWith('application/json')) return `${a.status} with content-type '${a.contentType}'`;
  let body: { error?: Record<string, unknown> };
  try {
    body = JSON.parse(a.text);
  } catch {
    return `${a.status} with a body that is not JSON`;
  }
  const e = body.error;
  if (!e || typeof e.message !== 'string' || typeof e.type !== 'string' || !('param' in e) || !('code' in e))
    return `${a.status} not in the decisions.md shape`;
  return undefined;
}

function fromProvider(a: Answer): boolean {
  try {
    const e = (JSON.parse(a.text) as { error?: { provider?: unknown; code?: unknown } }).error;
    return typeof e?.provider === 'string' && e.code !== 'internal_error';
  } catch {
    return false;
  }
}

async function inBatches<T, R>(items: T[], size: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += size) out.push(...(await Promise.all(items.slice(i, i + size).map(fn))));
  return out;
}

describe('bad-input sweep over every route of /openapi.json', () => {
  it(
    'answers every bad input with a 4xx in the decisions.md shape (or a 2xx), never a 5xx, and stays up',
    { timeout: 120_000 },
    async () => {
      expect(routes.length).toBeGreaterThan(20);
      const all = routes.flatMap((r) => probes(r.method, r.template, r.op));
      const failures: string[] = [];
      const answers = await inBatches(all, 24, async (p) => ({
        p,
        a: await send(p).catch((err: Error) => ({ status: 0, contentType: '', text: `request failed: ${err.message}` })),
      }));
      for (const { p, a } of answers) {
        const wrong = problem(a, p.forbid);
        if (wrong) failures.push(`${p.method} ${p.path.slice(0, 80)} [${p.what}]: ${wrong} ${a.text.slice(0, 160)}`);
      }
      const huge = await inBatches(routes, 24, async (r) => ({ r, a: await sendHugeHeaders(r.method, fill(r.template, UNKNOWN_ID)) }));
      for (const { r, a } of huge) {
        if (a.status !== 431 || problem(a))
          failures.push(`${r.method} ${r.template} [over-large headers]: ${a.status} ${a.text.slice(0, 160)}`);
      }
      const health = await send({ method: 'GET', path: '/health', what: 'health' });
      expect(health.status).toBe(200);
      expect(failures, `${failures.length} of ${all.length + routes.length} answers were wrong:\n${failures.join('\n')}`).toEqual([]);
    },
  );
});
