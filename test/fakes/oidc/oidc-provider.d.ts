/**
 * The part of `oidc-provider` (which ships no types) the test issuer uses: the constructor with the
 * configuration keys it sets, and the Node request handler.
 */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  interface Account {
    accountId: string;
    claims(): Promise<Record<string, unknown>>;
  }

  interface Configuration {
    clients: Array<Record<string, unknown>>;
    claims?: Record<string, string[]>;
    scopes?: string[];
    cookies?: { keys: string[] };
    features?: Record<string, { enabled: boolean; [option: string]: unknown }>;
    issueRefreshToken?(...args: unknown[]): boolean | Promise<boolean>;
    rotateRefreshToken?(...args: unknown[]): boolean | Promise<boolean>;
    findAccount(ctx: unknown, id: string): Promise<Account | undefined>;
  }

  export default class Provider {
    constructor(issuer: string, configuration: Configuration);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    /** Provider events (`grant.success`, `server_error`, …) with the request's context. */
    on(event: string, listener: (ctx: never, ...rest: unknown[]) => void): this;
  }
}
