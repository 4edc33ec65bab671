/**
 * Kept-alive connections through a drain (docs/decisions.md, "Draining kept-alive connections").
 * Closing a server drops its idle keep-alive sockets at once (Node's server.close() and Fastify's
 * close both call closeIdleConnections), and a client that reused one at that moment had its request
 * reset after sending it. So from the start of the drain every response not yet begun says
 * `Connection: close` (its client opens a new connection for the next request, which the closed
 * listener refuses, and a balancer sends elsewhere), and idle sockets are closed only after
 * IDLE_CLOSE_GRACE_MS, by which time a busy client has had its answer with `Connection: close`; the
 * sweep repeats for sockets that go idle later (a stream whose headers left before the drain).
 */
import type { Server, ServerResponse } from 'node:http';

/** Long enough for a client in mid-exchange to get its `Connection: close`; far inside SHUTDOWN_BOUND_MS. */
export const IDLE_CLOSE_GRACE_MS = 1_500;

export class ConnectionDrain {
  readonly #closeIdleNow: () => void;
  readonly #inFlight = new Set<ServerResponse>();
  #draining = false;
  #sweep: NodeJS.Timeout | undefined;

  /** Takes over `server.closeIdleConnections`, which the server's own close calls. */
  constructor(server: Server) {
    this.#closeIdleNow = server.closeIdleConnections.bind(server);
    server.closeIdleConnections = () => this.start();
    server.once('close', () => clearInterval(this.#sweep));
  }

  /** Every request, as it arrives: during a drain its answer closes the connection; before, it is tracked until it ends. */
  admit(res: ServerResponse): void {
    if (this.#draining) {
      res.shouldKeepAlive = false;
      return;
    }
    this.#inFlight.add(res);
    res.once('close', () => this.#inFlight.delete(res));
  }

  /** The drain: answers not yet begun close their connections; idle sockets close after the grace (idempotent). */
  start(): void {
    if (this.#draining) return;
    this.#draining = true;
    for (const res of this.#inFlight) if (!res.headersSent) res.shouldKeepAlive = false;
    this.#inFlight.clear();
    this.#sweep = setInterval(this.#closeIdleNow, IDLE_CLOSE_GRACE_MS);
    this.#sweep.unref();
  }
}
