/**
 * A child process holding many readers of one agent event stream (GET /agent/conversations/{id}/events)
 * on raw HTTP connections, so that parsing a thousand streams shares neither the gateway's event loop
 * nor the benchmark's. Driven over IPC by bench/support/sse-readers.ts:
 *
 *   {cmd: 'open', url, key, count}  → {reply: 'open', opened, ms}     (every reader has its 200 and first frame)
 *   {cmd: 'collect'}                → {reply: 'collect', delays, sequences, received, badStatus}
 *   {cmd: 'close'}                  → {reply: 'close'}                (the readers are destroyed)
 *
 * A delay is the reader's arrival time (Date.now() when the chunk is read) minus the event's `createdAt`
 * (the gateway's clock when the event's transaction began; the same machine's clock), in ms; with it,
 * the event's sequence, so that a delay can be told apart by event.
 */
import http from 'node:http';

export type ReaderCommand = { cmd: 'open'; url: string; key: string; count: number } | { cmd: 'collect' } | { cmd: 'close' };
export type ReaderReply =
  | { reply: 'open'; opened: number; ms: number }
  | { reply: 'collect'; delays: number[]; sequences: number[]; received: number; badStatus: number }
  | { reply: 'close' }
  | { reply: 'error'; message: string };

const agent = new http.Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
const requests: http.ClientRequest[] = [];
let delays: number[] = [];
let sequences: number[] = [];
let received = 0;
let badStatus = 0;

function send(reply: ReaderReply): void {
  process.send?.(reply);
}

function openOne(url: string, key: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent, headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) {
        badStatus += 1;
        res.resume();
        reject(new Error(`SSE answered ${res.statusCode}`));
        return;
      }
      res.setEncoding('utf8');
      let buffer = '';
      let first = true;
      res.on('data', (chunk: string) => {
        const now = Date.now();
        buffer += chunk;
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = /^data: (.*)$/m.exec(frame)?.[1];
          if (data) {
            const event = JSON.parse(data) as { createdAt?: string; sequence?: number };
            if (event.createdAt) {
              delays.push(now - Date.parse(event.createdAt));
              sequences.push(event.sequence ?? 0);
              received += 1;
            }
          }
          end = buffer.indexOf('\n\n');
        }
        // The stream's first frame (`retry:`) says the server has set the reader up.
        if (first) {
          first = false;
          resolve();
        }
      });
    });
    req.on('error', reject);
    requests.push(req);
  });
}

process.on('message', (message: ReaderCommand) => {
  void (async () => {
    try {
      if (message.cmd === 'open') {
        const started = performance.now();
        // In batches of 100, as clients arrive, not as one burst of a thousand SYNs.
        for (let i = 0; i < message.count; i += 100) {
          await Promise.all(Array.from({ length: Math.min(100, message.count - i) }, () => openOne(message.url, message.key)));
        }
        send({ reply: 'open', opened: requests.length, ms: performance.now() - started });
      } else if (message.cmd === 'collect') {
        send({ reply: 'collect', delays, sequences, received, badStatus });
        delays = [];
        sequences = [];
        received = 0;
      } else {
        for (const req of requests.splice(0)) req.destroy();
        send({ reply: 'close' });
      }
    } catch (error) {
      send({ reply: 'error', message: error instanceof Error ? error.message : String(error) });
    }
  })();
});
process.on('disconnect', () => process.exit(0));
