/**
 * A webhook receiver for tests: an HTTP server on 127.0.0.1 that records every request and answers
 * each path as scripted for it, and the signature check a receiver would make.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, createServer as createTcpServer, type Socket } from 'node:net';
import { after, before } from 'node:test';
import { Webhook } from 'standardwebhooks';

export interface ReceivedWebhook {
  path: string;
  /** Single-valued headers only: the webhook-* headers a signature check reads. */
  headers: Record<string, string>;
  body: string;
  /** When the whole request had arrived (Date.now()). */
  receivedAt: number;
}

/** An answer beyond a bare status: headers (Retry-After, Location), or held back past a sender's time-out. */
export interface ScriptedAnswer {
  status: number;
  headers?: Record<string, string>;
  delayMs?: number;
}

export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  readonly #scripts = new Map<string, ScriptedAnswer[]>();
  #paths = 0;
  #server: Server | undefined;
  origin = '';

  async start(): Promise<void> {
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = req.url ?? '/';
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
        this.received.push({ path, headers, body: Buffer.concat(chunks).toString('utf8'), receivedAt: Date.now() });
        const script = this.#scripts.get(path) ?? [];
        const answer = (script.length > 1 ? script.shift() : script[0]) ?? { status: 200 };
        const send = () => res.writeHead(answer.status, answer.headers).end();
        if (answer.delayMs) setTimeout(send, answer.delayMs).unref();
        else send();
      });
    });
    const server = this.#server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  /** The answers the next requests to `path` get, in order; the last one repeats (200 until told). */
  answer(path: string, ...answers: Array<number | ScriptedAnswer>): void {
    this.#scripts.set(
      path,
      answers.map((a) => (typeof a === 'number' ? { status: a } : a)),
    );
  }

  /** The full URL of a path no other test uses, answered as given (see answer). */
  url(name: string, ...answers: Array<number | ScriptedAnswer>): string {
    const path = `/${name}-${++this.#paths}`;
    this.answer(path, ...answers);
    return this.origin + path;
  }

  /** What arrived at a path, or at a URL from url(). */
  at(pathOrUrl: string): ReceivedWebhook[] {
    const path = pathOrUrl.startsWith('/') ? pathOrUrl : new URL(pathOrUrl).pathname;
    return this.received.filter((r) => r.path === path);
  }

  async close(): Promise<void> {
    this.#server?.closeAllConnections();
    await new Promise<void>((resolve) => this.#server?.close(() => resolve()));
  }
}

/**
 * A receiver that accepts connections and never reads from them or answers: the sender's request
 * sits in the socket buffers until its time-out. `connections` counts what was accepted.
 */
export async function startUnreadingReceiver(): Promise<{ origin: string; connections(): number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createTcpServer((socket) => {
    accepted++;
    socket.pause();
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: () => accepted,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A receiver started before the tests around the call (a file's, or a describe's) and closed after them. */
export function webhookReceiverForFile(): WebhookReceiver {
  const receiver = new WebhookReceiver();
  before(() => receiver.start());
  after(() => receiver.close());
  return receiver;
}

/** The payload of a Standard Webhooks delivery, checked with the reference library; throws when the signature does not verify. */
export function verifySigned(secret: string, delivery: ReceivedWebhook | undefined): unknown {
  assert.ok(delivery, 'a delivery to verify');
  return new Webhook(secret).verify(delivery.body, delivery.headers);
}
