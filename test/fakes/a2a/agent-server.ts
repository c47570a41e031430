import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { Role, TaskState, type AgentCard, type Message, type Task } from '@a2a-js/sdk';
import {
  DefaultRequestHandler,
  InMemoryTaskStore,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from '@a2a-js/sdk/server';
import { UserBuilder, agentCardHandler, jsonRpcHandler } from '@a2a-js/sdk/server/express';

/** What the fake agent saw of one JSON-RPC call. */
export interface SeenCall {
  method: string;
  headers: Record<string, string | string[] | undefined>;
}

/** Options of the fake agent server. */
export interface FakeAgentOptions {
  /** Path prefix the agent is served under (`/team/agent`); its card is at `<prefix>/.well-known/agent-card.json`. */
  prefix?: string;
  /** The URL the card advertises for its JSON-RPC interfaces (default: where it is served). */
  advertisedUrl?: string;
  /** Pause between the events of a task (ms), so a stream's chunks are apart in time. */
  stepMs?: number;
}

/** A real A2A agent built with the official SDK (v1.0 with its v0.3 compatibility layer) behind express. */
export interface FakeAgent {
  /** http://127.0.0.1:<port><prefix> */
  url: string;
  calls: SeenCall[];
  /** Calls whose client went away before the answer was complete. */
  aborted: number;
  /** Headers of each request for the card. */
  cardRequests: Array<Record<string, string | string[] | undefined>>;
  card: AgentCard;
  /** When set, a JSON-RPC call without exactly this `Authorization` is answered 401 (tests set it while running). */
  requiredAuthorization?: string;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function textOf(message: Message): string {
  return message.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
}

function agentMessage(taskId: string, contextId: string, text: string): Message {
  return {
    messageId: crypto.randomUUID(),
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/**
 * The agent's behaviour, chosen by the user's text: `hang` never answers (a stalled agent); `stall`
 * creates its task, then goes silent; `wait`
 * works until it is cancelled; anything else is echoed back as an artifact in three steps
 * (submitted, working, artifact, completed).
 */
class EchoExecutor implements AgentExecutor {
  private readonly cancelled = new Set<string>();

  constructor(private readonly stepMs: number) {}

  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const text = textOf(ctx.userMessage);
    const { taskId, contextId } = ctx;
    if (text === 'hang') {
      await sleep(600_000);
      return;
    }
    const task: Task = {
      id: taskId,
      contextId,
      status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
      artifacts: [],
      history: [ctx.userMessage],
      metadata: undefined,
    };
    bus.publish({ kind: 'task', data: task });
    if (text === 'stall') {
      await sleep(600_000);
      return;
    }
    await sleep(this.stepMs);
    bus.publish({
      kind: 'statusUpdate',
      data: {
        taskId,
        contextId,
        status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: new Date().toISOString() },
        metadata: undefined,
      },
    });
    if (text === 'wait') {
      while (!this.cancelled.has(taskId)) await sleep(20);
      bus.finished();
      return;
    }
    await sleep(this.stepMs);
    bus.publish({
      kind: 'artifactUpdate',
      data: {
        taskId,
        contextId,
        artifact: {
          artifactId: 'echo',
          name: 'echo',
          description: '',
          parts: [{ content: { $case: 'text', value: `echo: ${text}` }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
          metadata: undefined,
          extensions: [],
        },
        append: false,
        lastChunk: true,
        metadata: undefined,
      },
    });
    await sleep(this.stepMs);
    bus.publish({
      kind: 'statusUpdate',
      data: {
        taskId,
        contextId,
        status: {
          state: TaskState.TASK_STATE_COMPLETED,
          message: agentMessage(taskId, contextId, 'done'),
          timestamp: new Date().toISOString(),
        },
        metadata: undefined,
      },
    });
    bus.finished();
  }

  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    this.cancelled.add(taskId);
    bus.publish({
      kind: 'statusUpdate',
      data: {
        taskId,
        contextId: '',
        status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: new Date().toISOString() },
        metadata: undefined,
      },
    });
    bus.finished();
  }
}

/** Starts the fake agent on 127.0.0.1 (JSON-RPC at `<prefix>`, card at `<prefix>/.well-known/agent-card.json`). */
export async function startFakeAgent(opts: FakeAgentOptions = {}): Promise<FakeAgent> {
  const prefix = opts.prefix ?? '';
  const app = express();
  const calls: SeenCall[] = [];
  const cardRequests: FakeAgent['cardRequests'] = [];
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${prefix}`;
  const advertised = opts.advertisedUrl ?? url;
  const card: AgentCard = {
    name: 'Echo agent',
    description: 'Echoes what it is sent.',
    supportedInterfaces: [
      { url: advertised, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
      { url: advertised, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '0.3' },
      { url: `${advertised}/rest`, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: '1.0' },
    ],
    provider: { url: 'https://example.com', organization: 'Example' },
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [
      {
        id: 'echo',
        name: 'Echo',
        description: 'Echoes text.',
        tags: ['echo'],
        examples: [],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
      {
        id: 'admin',
        name: 'Admin',
        description: 'Not for everyone.',
        tags: ['admin'],
        examples: [],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
    ],
    signatures: [{ protected: 'eyJhbGciOiJFUzI1NiJ9', signature: 'c2lnbmF0dXJl', header: undefined }],
  };
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new EchoExecutor(opts.stepMs ?? 30));
  app.use((req, res, next) => {
    if (req.method === 'POST') calls.push({ method: '', headers: { ...req.headers } });
    if (req.method === 'POST' && fake.requiredAuthorization !== undefined && req.headers.authorization !== fake.requiredAuthorization) {
      res.status(401).json({ error: 'unauthorized' });
      return;
    }
    res.on('close', () => {
      if (!res.writableFinished) fake.aborted++;
    });
    if (req.method === 'GET' && req.path.endsWith('/agent-card.json')) cardRequests.push({ ...req.headers });
    next();
  });
  app.use(`${prefix}/.well-known/agent-card.json`, agentCardHandler({ agentCardProvider: handler, legacyCompat: { enabled: true } }));
  app.use(express.json());
  app.use((req, _res, next) => {
    const last = calls.at(-1);
    if (req.method === 'POST' && last && typeof req.body?.method === 'string') last.method = req.body.method;
    next();
  });
  app.use(
    prefix || '/',
    jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat: { enabled: true } }),
  );
  const fake: FakeAgent = {
    url,
    calls,
    aborted: 0,
    cardRequests,
    card,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return fake;
}
