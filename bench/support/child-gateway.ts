import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** As in package.json's start script: a young generation of up to 64 MiB per semi-space (docs/decisions.md). */
const GATEWAY_NODE_FLAGS = ['--max-semi-space-size=64'];

export const BENCH_ADMIN_TOKEN = 'bench-admin-token-0123456789abcdefghijkl';
export const BENCH_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const BENCH_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export interface ChildGateway {
  url: string;
  env: Record<string, string>;
  processes: ChildProcess[];
  admin<T>(method: string, path: string, body?: unknown): Promise<T>;
  createUser(balanceCents: number): Promise<{ userId: string; key: string }>;
  /** Starts more worker-only processes on the same stores. */
  addWorkers(count: number): Promise<void>;
  stop(): Promise<void>;
}

export interface ChildGatewayOptions {
  store: 'sqlite' | 'postgres';
  env?: Record<string, string>;
  /** Extra worker-only processes (scale-out). */
  workers?: number;
  /** Role of the first process (default: `all`, or `api` when workers are given). */
  role?: 'all' | 'api';
  /** Written to a file and passed as SWITCHBOARD_CONFIG. */
  configFile?: Record<string, unknown>;
}

/** A gateway in its own process (as production runs it), so the load generator does not share its event loop. */
export async function startChildGateway(options: ChildGatewayOptions): Promise<ChildGateway> {
  const dir = mkdtempSync(join(tmpdir(), 'sb-bench-'));
  const port = await freePort();
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dir,
    ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
    SWITCHBOARD_DEMO_USER: '0',
    SWITCHBOARD_ALLOW_PRIVATE_URLS: '1',
    SWITCHBOARD_WEBHOOK_PORTS: 'any',
    SWITCHBOARD_ALLOW_HTTP_WEBHOOKS: '1',
    LOG_LEVEL: 'info',
    ...options.env,
  };
  if (options.configFile) {
    const path = join(dir, 'switchboard.json');
    writeFileSync(path, JSON.stringify(options.configFile));
    env.SWITCHBOARD_CONFIG = path;
  }
  let schema: string | undefined;
  if (options.store === 'postgres') {
    schema = `bench_${randomBytes(5).toString('hex')}`;
    const client = new pg.Client({ connectionString: BENCH_DATABASE_URL });
    await client.connect();
    await client.query(`CREATE SCHEMA ${schema}`);
    await client.end();
    const url = new URL(BENCH_DATABASE_URL);
    url.searchParams.set('options', `-c search_path=${schema}`);
    env.DATABASE_URL = url.toString();
    env.REDIS_URL ??= BENCH_REDIS_URL;
    env.SWITCHBOARD_REDIS_PREFIX = `${schema}:`;
  }
  const processes: ChildProcess[] = [];
  const launch = (role: string, extra: Record<string, string> = {}) => {
    // BENCH_PROFILE_DIR=dir writes a CPU profile of every worker-role process there (for bench work).
    const profile = role === 'worker' && process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : [];
    // The V8 flags of `npm start` (package.json), so that the bench measures the gateway as it runs.
    const child = spawn(process.execPath, [...profile, ...GATEWAY_NODE_FLAGS, 'src/main.ts', 'serve'], { env: { ...env, ROLE: role, ...extra }, stdio: ['ignore', 'ignore', 'inherit'] });
    processes.push(child);
    return child;
  };
  launch(options.role ?? (options.workers ? 'api' : 'all'));
  const url = `http://127.0.0.1:${port}`;
  env.PUBLIC_BASE_URL = url;
  try {
    await waitForHealth(url);
  } catch (error) {
    // Not left running (nor its schema and directory) when the caller never gets a handle to stop it.
    for (const child of processes) child.kill('SIGKILL');
    if (schema) {
      const client = new pg.Client({ connectionString: BENCH_DATABASE_URL });
      await client.connect();
      await client.query(`DROP SCHEMA ${schema} CASCADE`);
      await client.end();
    }
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const addWorkers = async (count: number) => {
    for (let i = 0; i < count; i++) launch('worker', { PORT: String(await freePort()) });
  };
  await addWorkers(options.workers ?? 0);

  const admin = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(url + path, {
      method,
      headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  return {
    url,
    env,
    processes,
    admin,
    addWorkers,
    async createUser(balanceCents) {
      const user = await admin<{ id: string }>('POST', '/admin/v1/users', { balanceCents });
      const key = await admin<{ key: string }>('POST', `/admin/v1/users/${user.id}/api-keys`, {});
      return { userId: user.id, key: key.key };
    },
    async stop() {
      await Promise.all(
        processes.map(
          (child) =>
            new Promise<void>((resolve) => {
              if (child.exitCode !== null) return resolve();
              child.once('exit', () => resolve());
              child.kill('SIGTERM');
            }),
        ),
      );
      if (schema) {
        const client = new pg.Client({ connectionString: BENCH_DATABASE_URL });
        await client.connect();
        await client.query(`DROP SCHEMA ${schema} CASCADE`);
        await client.end();
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function waitForHealth(url: string): Promise<void> {
  // 60 s: a gateway has taken 15 s to start on this machine when it was busy, and more on PostgreSQL.
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${url}/healthz`)).ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`gateway at ${url} did not become healthy`);
}

export async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: BENCH_DATABASE_URL, connectionTimeoutMillis: 1000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}
