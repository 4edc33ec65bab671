import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { freePort } from '../../../bench/support/child-gateway.ts';

/**
 * A redis-server of the chaos run's own, on a free port, so that killing and restarting it harms no
 * other test (the shared Redis on 6379 is never touched). Nothing is persisted: a restart comes back
 * empty, as a Redis that lost its memory does (the gateway keeps no truth there).
 */
export interface OwnRedis {
  url: string;
  port: number;
  /** SIGKILL: clients see their connections reset, new connections are refused. */
  kill(): Promise<void>;
  /** Starts it again on the same port; resolves once it answers PING. */
  restart(): Promise<void>;
  isUp(): Promise<boolean>;
  stop(): Promise<void>;
}

/** Why a chaos run cannot have its own Redis here, or undefined when it can. */
export function redisServerMissing(): string | undefined {
  const probe = spawnSync('redis-server', ['--version']);
  return probe.error ? 'redis-server is not on PATH (Debian: apt-get install redis-server)' : undefined;
}

export async function startOwnRedis(): Promise<OwnRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();

  const launch = async () => {
    const started = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--dir', tmpdir()], {
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    child = started;
    exited = new Promise((resolve) => started.once('exit', () => resolve()));
    const deadline = Date.now() + 10_000;
    while (!(await ping(port))) {
      if (started.exitCode !== null) throw new Error(`redis-server on port ${port} exited with ${started.exitCode}`);
      if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not answer PING within 10 s`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const kill = async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };

  await launch();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    kill,
    async restart() {
      await kill();
      await launch();
    },
    isUp: () => ping(port),
    stop: kill,
  };
}

/** True when something on the port answers a RESP PING with +PONG within a second. */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    let answer = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('latin1');
      if (answer.includes('\r\n')) done(answer.startsWith('+PONG'));
    });
    socket.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
  });
}
