import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The fleet's one public address, as a load balancer gives it: PUBLIC_BASE_URL of every process, so
 * that upstream callbacks reach whichever API process is alive when they are sent (a worker process
 * serves no HTTP, and a killed API process's port is gone). Round robin over the live backends; a
 * refused connection tries the next one; 502 when none answers.
 */
export interface FrontProxy {
  url: string;
  close(): Promise<void>;
}

export interface FrontProxyOptions {
  /**
   * When no backend answers, try them again for this long before the 502: a client that retries a
   * refused connection until the restarted process listens again (one process, embedded).
   */
  retryRefusedMs?: number;
}

export async function startFrontProxy(backends: () => string[], options: FrontProxyOptions = {}): Promise<FrontProxy> {
  let turn = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const giveUpAt = Date.now() + (options.retryRefusedMs ?? 0);
      const attempt = async (): Promise<void> => {
        const candidates = backends();
        turn += 1;
        const ordered = candidates.map((_, i) => candidates[(turn + i) % candidates.length] ?? '');
        if ((await forward(req, res, body, ordered)) || Date.now() > giveUpAt) {
          if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' }).end('{"error":"no backend answered"}');
          return;
        }
        await new Promise((r) => setTimeout(r, 100));
        await attempt();
      };
      void attempt();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** True when a backend answered (or the answer broke after its headers); false when none did. */
async function forward(req: IncomingMessage, res: ServerResponse, body: Buffer, backends: string[]): Promise<boolean> {
  for (const backend of backends) {
    const answered = await new Promise<boolean>((resolve) => {
      const target = new URL(req.url ?? '/', backend);
      const upstream = httpRequest(
        { host: target.hostname, port: target.port, path: target.pathname + target.search, method: req.method, headers: { ...req.headers, host: target.host } },
        (answer) => {
          // The bound is for a backend that never answers; an answer (an event stream) may last.
          upstream.setTimeout(0);
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          answer.on('end', () => resolve(true));
          answer.on('error', () => resolve(true));
        },
      );
      // Only a connection that never got an answer is retried elsewhere.
      upstream.on('error', () => resolve(res.headersSent));
      upstream.setTimeout(15_000, () => upstream.destroy(new Error('timeout')));
      upstream.end(body);
    });
    if (answered) return true;
  }
  if (res.headersSent) {
    res.destroy();
    return true;
  }
  return false;
}
