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
    cookies?: { keys: string[] };
    features?: Record<string, { enabled: boolean }>;
    findAccount(ctx: unknown, id: string): Promise<Account | undefined>;
  }

  export default class Provider {
    constructor(issuer: string, configuration: Configuration);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
  }
}
