import { createServer, type Server, type Socket } from 'node:net';

/**
 * A "Redis" that passes the client's connection handshake (HELLO refused as by Redis 5, CLIENT, the
 * INFO ready check) and then never answers another command: a server that is up but stuck. Without
 * a command time-out, every call to it would hang.
 */
export interface SilentRedis {
  url: string;
  /** Commands received and never answered (the handshake's are answered and not counted). */
  unanswered(): number;
  close(): Promise<void>;
}

export async function startSilentRedis(): Promise<SilentRedis> {
  const sockets = new Set<Socket>();
  let unanswered = 0;
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let buffered = '';
    socket.on('data', (data) => {
      buffered += data.toString();
      for (let command = takeCommand(); command; command = takeCommand()) {
        const name = command[0]?.toLowerCase();
        if (name === 'hello') socket.write("-ERR unknown command 'HELLO'\r\n");
        else if (name === 'client') socket.write('+OK\r\n');
        else if (name === 'info') {
          const info = 'redis_version:7.0.0\r\nloading:0\r\n';
          socket.write(`$${info.length}\r\n${info}\r\n`);
        } else unanswered += 1;
      }
    });
    /** One whole RESP command (an array of bulk strings) off the buffer, or undefined. */
    function takeCommand(): string[] | undefined {
      const lines = buffered.split('\r\n');
      const count = Number(lines[0]?.slice(1));
      if (!lines[0]?.startsWith('*') || lines.length < 1 + 2 * count + 1) return undefined;
      const args = Array.from({ length: count }, (_, i) => lines[2 + 2 * i] ?? '');
      buffered = lines.slice(1 + 2 * count).join('\r\n');
      return args;
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `redis://127.0.0.1:${port}`,
    unanswered: () => unanswered,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A redis:// URL on a port nothing listens on: connections are refused. */
export async function refusedRedisUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `redis://127.0.0.1:${port}`;
}
