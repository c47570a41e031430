import { createServer, type IncomingHttpHeaders, type Server as HttpServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import {
  CallToolRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';

/**
 * An upstream MCP server for tests, built on the SDK's `McpServer`, served over Streamable HTTP
 * (`/mcp`, stateful sessions) and the older HTTP+SSE transport (`/sse` + `/messages`). Tools: `echo`
 * (answers its arguments), `progress` (sends three progress notifications first), `secret` (a tool
 * the gateway's filter denies in tests); one resource (`fake://readme`) and one prompt (`greet`).
 * It records every tool call it receives and the headers of every HTTP request.
 */
export interface FakeMcp {
  /** Base URL, e.g. http://127.0.0.1:1234 (`/mcp` and `/sse` below it). */
  url: string;
  /** Tool calls that reached the upstream. */
  calls: Array<{ tool: string; args: unknown }>;
  /** Headers of every HTTP request received. */
  headers: IncomingHttpHeaders[];
  /** Upstream sessions opened (`initialize` requests). */
  initializations: number;
  /** HTTP+SSE streams (`GET /sse`) open now: each is one connection the gateway holds. */
  openSseStreams: number;
  /** The tools listed (a test may add a duplicate). */
  tools: Tool[];
  /** When set, a request to `/mcp`, `/sse` or `/messages` without exactly this `Authorization` is answered 401 (tests set it while running). */
  requiredAuthorization?: string;
  /** Sends `notifications/tools/list_changed` to every open session (on its session stream). */
  announceToolsChanged(): Promise<void>;
  close(): Promise<void>;
}

const TOOLS: Tool[] = [
  { name: 'echo', description: 'Answers its arguments.', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
  { name: 'progress', description: 'Reports progress three times, then answers.', inputSchema: { type: 'object', properties: {} } },
  { name: 'secret', description: 'A tool the gateway must never let through in tests.', inputSchema: { type: 'object', properties: {} } },
];

function buildServer(fake: FakeMcp): McpServer {
  const mcp = new McpServer({ name: 'fake-upstream', version: '1.0.0' }, { capabilities: { tools: {}, resources: {}, prompts: {} } });
  const s = mcp.server;
  s.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: fake.tools }));
  s.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const { name, arguments: args } = req.params;
    fake.calls.push({ tool: name, args });
    if (name === 'echo') return { content: [{ type: 'text', text: JSON.stringify(args ?? {}) }] };
    if (name === 'progress') {
      const token = req.params._meta?.progressToken;
      for (let i = 1; i <= 3; i++) {
        if (token !== undefined)
          await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: 3 } });
        await new Promise((r) => setTimeout(r, 5));
      }
      return { content: [{ type: 'text', text: 'done' }] };
    }
    if (name === 'secret') return { content: [{ type: 'text', text: 'the secret' }] };
    return { content: [{ type: 'text', text: `unknown tool ${name}` }], isError: true };
  });
  s.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: [{ uri: 'fake://readme', name: 'readme', mimeType: 'text/plain' }],
  }));
  s.setRequestHandler(ReadResourceRequestSchema, async (req) => ({
    contents: [{ uri: req.params.uri, mimeType: 'text/plain', text: 'hello resource' }],
  }));
  s.setRequestHandler(ListPromptsRequestSchema, async () => ({
    prompts: [{ name: 'greet', description: 'Greets someone.', arguments: [{ name: 'who', required: true }] }],
  }));
  s.setRequestHandler(GetPromptRequestSchema, async (req) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Hello ${req.params.arguments?.who ?? '?'}` } }],
  }));
  return mcp;
}

/** Starts the fake on 127.0.0.1 (a free port). */
export async function startFakeMcp(): Promise<FakeMcp> {
  const streams = new Map<string, StreamableHTTPServerTransport>();
  const sse = new Map<string, SSEServerTransport>();
  const servers = new Set<McpServer>();
  const fake: FakeMcp = {
    url: '',
    calls: [],
    headers: [],
    initializations: 0,
    openSseStreams: 0,
    tools: [...TOOLS],
    announceToolsChanged: async () => {
      for (const s of servers) if (s.isConnected()) await s.server.sendToolListChanged().catch(() => undefined);
    },
    close: async () => undefined,
  };
  const serve = (): McpServer => {
    const s = buildServer(fake);
    servers.add(s);
    return s;
  };
  const http: HttpServer = createServer((req, res) => {
    fake.headers.push(req.headers);
    const path = (req.url ?? '').split('?')[0];
    (async () => {
      if (
        (path === '/mcp' || path === '/sse' || path === '/messages') &&
        fake.requiredAuthorization !== undefined &&
        req.headers.authorization !== fake.requiredAuthorization
      ) {
        res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'unauthorized' }));
        return;
      }
      if (path === '/mcp') {
        const sid = req.headers['mcp-session-id'];
        const existing = typeof sid === 'string' ? streams.get(sid) : undefined;
        if (existing) return existing.handleRequest(req, res);
        if (typeof sid === 'string' || req.method !== 'POST') {
          res
            .writeHead(404, { 'content-type': 'application/json' })
            .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }));
          return;
        }
        const transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => {
            fake.initializations++;
            streams.set(id, transport);
          },
        });
        transport.onclose = () => transport.sessionId && streams.delete(transport.sessionId);
        await serve().connect(transport);
        return transport.handleRequest(req, res);
      }
      if (path === '/sse' && req.method === 'GET') {
        const transport = new SSEServerTransport('/messages', res);
        sse.set(transport.sessionId, transport);
        fake.openSseStreams++;
        res.on('close', () => {
          fake.openSseStreams--;
          sse.delete(transport.sessionId);
        });
        fake.initializations++;
        await serve().connect(transport);
        return;
      }
      if (path === '/messages' && req.method === 'POST') {
        const id = new URL(req.url ?? '', 'http://x').searchParams.get('sessionId') ?? '';
        const transport = sse.get(id);
        if (!transport) return void res.writeHead(404).end('unknown session');
        return transport.handlePostMessage(req, res);
      }
      res.writeHead(404).end();
    })().catch((err) => {
      if (!res.headersSent) res.writeHead(500).end(String(err));
    });
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  fake.url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  fake.close = async () => {
    await Promise.all([...streams.values()].map((t) => t.close().catch(() => undefined)));
    await Promise.all([...sse.values()].map((t) => t.close().catch(() => undefined)));
    http.closeAllConnections();
    await new Promise<void>((r) => http.close(() => r()));
  };
  return fake;
}
