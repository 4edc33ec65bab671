import { createServer, type Server, type Socket, connect } from 'node:net';

/**
 * A TCP proxy in front of a real service (PostgreSQL, Redis, the S3 server), for fault tests that
 * must not touch the shared service itself: `cut()` drops every connection through it and refuses new
 * ones (the service is gone: a restart, a failover, a crash); `hang()` keeps connections open but
 * passes nothing until `restore()` (a stopped process: SIGSTOP, then SIGCONT); `restore()` lets
 * traffic through again.
 */
export interface TcpProxy {
  port: number;
  /** host:port to put in a URL in place of the service's. */
  address: string;
  cut(): void;
  hang(): void;
  restore(): void;
  close(): Promise<void>;
}

type Mode = 'open' | 'cut' | 'hang';

export async function startTcpProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
  let mode: Mode = 'open';
  const pairs = new Set<[Socket, Socket]>();
  let held: Array<() => void> = [];
  const server: Server = createServer((client) => {
    if (mode === 'cut') {
      client.destroy();
      return;
    }
    const upstream = connect(targetPort, targetHost);
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    // While hanging, bytes wait here (a stopped process reads nothing, then everything once it runs).
    client.on('data', (chunk: Buffer) => {
      if (mode === 'open') upstream.write(chunk);
      else held.push(() => upstream.write(chunk));
    });
    upstream.on('data', (chunk: Buffer) => {
      if (mode === 'open') client.write(chunk);
      else held.push(() => client.write(chunk));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    address: `127.0.0.1:${port}`,
    cut() {
      mode = 'cut';
      held = [];
      for (const [client, upstream] of [...pairs]) {
        client.destroy();
        upstream.destroy();
      }
      pairs.clear();
    },
    hang() {
      mode = 'hang';
    },
    restore() {
      mode = 'open';
      const flush = held;
      held = [];
      for (const write of flush) write();
    },
    async close() {
      mode = 'cut';
      for (const [client, upstream] of [...pairs]) {
        client.destroy();
        upstream.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
