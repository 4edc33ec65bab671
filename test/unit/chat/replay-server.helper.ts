/**
 * A tiny local HTTP server that answers every request with a prepared body, so that the official
 * SDKs can parse what our encoders and renderers produce, exactly as they would from a vendor.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Reply {
  status?: number;
  contentType: 'text/event-stream' | 'application/json';
  body: string;
}

export class ReplayServer {
  reply: Reply = { contentType: 'application/json', body: '{}' };
  /** Bodies of the requests received, parsed. */
  readonly received: unknown[] = [];
  readonly #server: Server;
  #port = 0;

  constructor() {
    this.#server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      this.received.push(JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null'));
      res.writeHead(this.reply.status ?? 200, { 'content-type': this.reply.contentType });
      // Written in two halves, so the SDK's SSE parser has to join them.
      const half = Math.floor(this.reply.body.length / 2);
      res.write(this.reply.body.slice(0, half));
      setImmediate(() => res.end(this.reply.body.slice(half)));
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.#port = (this.#server.address() as AddressInfo).port;
    return this;
  }

  get origin(): string {
    return `http://127.0.0.1:${this.#port}`;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
