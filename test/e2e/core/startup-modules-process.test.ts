import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { spawnGateway, type GatewayProcess } from '../../helpers/processes.js';

/**
 * Memory is held by every module a process loads (its source and bytecode stay in the heap), so an
 * embedded gateway must not load what only optional parts need: Redis, PostgreSQL, the AWS libraries
 * of Bedrock, the tokenizer. A module-resolution hook records every bare import of the process.
 */
describe('startup of the embedded gateway (own process)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-modules-'));
  const log = join(dir, 'resolved.txt');
  const hook = join(dir, 'hook.mjs');
  const register = join(dir, 'register.mjs');
  writeFileSync(
    hook,
    `import { appendFileSync } from 'node:fs';\nexport async function resolve(specifier, context, next) {\n  if (!specifier.startsWith('.') && !specifier.startsWith('node:') && !specifier.startsWith('file:')) appendFileSync(${JSON.stringify(log)}, specifier + '\\n');\n  return next(specifier, context);\n}\n`,
  );
  writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hook).href)});\n`);
  let gw: GatewayProcess | undefined;

  afterAll(async () => {
    await gw?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('loads neither ioredis, pg, the AWS libraries, gpt-tokenizer nor the MCP SDK until they are needed', async () => {
    writeFileSync(log, '');
    gw = await spawnGateway({}, { nodeArgs: ['--import', pathToFileURL(register).href] });
    const res = await fetch(gw.url + '/v1/models', {
      headers: {
        'x-gateway-api-key': gw.adminKey,
        'x-gateway-provider': 'openai',
        authorization: 'Bearer sk-x',
        'x-gateway-custom-host': 'http://127.0.0.1:9/v1',
      },
    });
    await res.arrayBuffer();
    const resolved = new Set(readFileSync(log, 'utf8').split('\n').filter(Boolean));
    // The hook works: the modules every start needs are recorded.
    expect(resolved).toContain('fastify');
    expect(resolved).toContain('better-sqlite3');
    for (const lazy of ['ioredis', 'pg', '@smithy/signature-v4', '@smithy/eventstream-codec', '@aws-crypto/sha256-js', 'gpt-tokenizer'])
      expect(resolved).not.toContain(lazy);
    // The MCP endpoint's module and the upstream OAuth load on the first MCP request or connect.
    expect([...resolved].filter((s) => s.startsWith('@modelcontextprotocol/sdk'))).toEqual([]);
  });
});
