/**
 * The floor of any Node.js gateway on this machine, for bench/chat: a bare `node:http` server that
 * forwards each POST body to the upstream with undici (the same Agent settings as our chat adapters)
 * and copies the answer back, streamed. No framework, no auth, no parsing, no logging, no billing.
 * `node bench/chat/floor-proxy.ts <port> <upstream origin>`.
 */
import { createServer } from 'node:http';
import { Agent, request } from 'undici';

const port = Number(process.argv[2]);
const upstream = String(process.argv[3]);
const dispatcher = new Agent({ keepAliveTimeout: 30_000, pipelining: 1 });

createServer((req, res) => {
  const parts: Buffer[] = [];
  req.on('data', (part: Buffer) => parts.push(part));
  req.on('end', () => {
    request(`${upstream}${req.url}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' }, body: Buffer.concat(parts), dispatcher })
      .then(async (answer) => {
        res.writeHead(answer.statusCode, { 'content-type': String(answer.headers['content-type'] ?? 'application/json') });
        for await (const chunk of answer.body) res.write(chunk);
        res.end();
      })
      .catch(() => {
        if (!res.headersSent) res.writeHead(502);
        res.end();
      });
  });
}).listen(port, '127.0.0.1', () => process.stdout.write(`PORT ${port}\n`));
