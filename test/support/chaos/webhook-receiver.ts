import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  webhookId: string;
  taskId: string | undefined;
  eventType: string | undefined;
  /** What the receiver answered. */
  status: number;
  at: number;
}

/**
 * A webhook receiver that fails some deliveries before accepting them: the first attempt of every
 * webhook-id chosen by `failFirst` (a third of them, by a hash of the id) gets a 503, later attempts a
 * 200 (the gateway retries 5 s later). Every attempt is recorded by webhook-id.
 */
export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  accepted(): ReceivedWebhook[];
  close(): Promise<void>;
}

export function failsFirstAttempt(webhookId: string): boolean {
  return createHash('sha256').update(webhookId).digest().readUInt8(0) % 3 === 0;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const seen = new Set<string>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const webhookId = String(req.headers['webhook-id'] ?? '');
      let taskId: string | undefined;
      let eventType: string | undefined;
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data?: { taskId?: string; status?: string } };
        taskId = body.data?.taskId;
        eventType = body.data?.status;
      } catch {}
      const first = !seen.has(webhookId);
      seen.add(webhookId);
      const status = first && failsFirstAttempt(webhookId) ? 503 : 200;
      received.push({ webhookId, taskId, eventType, status, at: Date.now() });
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : 'try again');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received,
    accepted: () => received.filter((r) => r.status === 200),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
