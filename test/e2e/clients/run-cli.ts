import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** What one non-interactive CLI run printed and how it ended. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

const BIN = resolve(import.meta.dirname, '../../../node_modules/.bin');

/** Environment shared by both CLIs: a private HOME, no telemetry, no update checks, no colour, no proxy. */
function baseEnv(home: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    NO_COLOR: '1',
    TERM: 'dumb',
    CI: '1',
    NO_PROXY: '127.0.0.1,localhost',
  };
}

function run(command: string, args: string[], env: Record<string, string>, cwd: string, timeoutMs: number): Promise<CliRun> {
  return new Promise((done) => {
    const child = spawn(command, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

/** A temporary HOME (and working directory) for one run, removed by `dispose`. */
function tempHome(): { home: string; dispose(): void } {
  const home = mkdtempSync(join(tmpdir(), 'cli-home-'));
  return { home, dispose: () => rmSync(home, { recursive: true, force: true }) };
}

/**
 * `claude -p <prompt>` against the gateway: `ANTHROPIC_BASE_URL` is the gateway's origin and the gateway
 * key is `ANTHROPIC_API_KEY` (sent as `x-api-key`) or, with `bearer`, `ANTHROPIC_AUTH_TOKEN`.
 */
export async function runClaudeCode(opts: {
  baseUrl: string;
  key: string;
  prompt: string;
  model?: string;
  bearer?: boolean;
  timeoutMs?: number;
}): Promise<CliRun> {
  const h = tempHome();
  try {
    const env = {
      ...baseEnv(h.home),
      ANTHROPIC_BASE_URL: opts.baseUrl,
      ...(opts.bearer ? { ANTHROPIC_AUTH_TOKEN: opts.key } : { ANTHROPIC_API_KEY: opts.key }),
      ...(opts.model ? { ANTHROPIC_MODEL: opts.model } : {}),
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_ERROR_REPORTING: '1',
      DISABLE_BUG_COMMAND: '1',
      CLAUDE_CODE_MAX_RETRIES: '0',
      API_TIMEOUT_MS: '20000',
    };
    return await run(join(BIN, 'claude'), ['-p', opts.prompt, '--max-turns', '2'], env, h.home, opts.timeoutMs ?? 60_000);
  } finally {
    h.dispose();
  }
}

/**
 * `codex exec <prompt>` against the gateway: a `config.toml` in a temporary `CODEX_HOME` whose model
 * provider has the gateway's `/v1` as `base_url`, reads the gateway key from `GATEWAY_KEY` and speaks Responses.
 */
export async function runCodex(opts: {
  baseUrl: string;
  key: string;
  prompt: string;
  model?: string;
  timeoutMs?: number;
}): Promise<CliRun> {
  const h = tempHome();
  try {
    const codexHome = join(h.home, '.codex');
    mkdirSync(codexHome, { recursive: true });
    writeFileSync(
      join(codexHome, 'config.toml'),
      [
        ...(opts.model ? [`model = "${opts.model}"`] : []),
        'model_provider = "gateway"',
        'check_for_update_on_startup = false',
        '[analytics]',
        'enabled = false',
        '[feedback]',
        'enabled = false',
        '[model_providers.gateway]',
        'name = "AI gateway"',
        `base_url = "${opts.baseUrl}/v1"`,
        'env_key = "GATEWAY_KEY"',
        'wire_api = "responses"',
        'request_max_retries = 0',
        'stream_max_retries = 0',
        '',
      ].join('\n'),
    );
    const env = { ...baseEnv(h.home), CODEX_HOME: codexHome, GATEWAY_KEY: opts.key, RUST_LOG: 'error' };
    return await run(
      join(BIN, 'codex'),
      ['exec', '--skip-git-repo-check', '--sandbox', 'read-only', opts.prompt],
      env,
      h.home,
      opts.timeoutMs ?? 60_000,
    );
  } finally {
    h.dispose();
  }
}
