import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * An answer given before its request's body was read (an early 401, a 413, any refusal mid-body)
 * closes its connection: the body's rest would otherwise keep the socket, and a client that trickles
 * it held it for the whole request time-out (issue 29: 60 s per unauthenticated connection). The
 * answer says `Connection: close`; once it is out, the rest of the body is read and dropped for up to
 * LINGER_MS or LINGER_BYTES, then the socket is destroyed. Not at once: closing with input unread
 * makes the kernel reset the connection, and a reset can overtake the answer on the client's side
 * (docs/decisions.md, "A lingering close after a refused body").
 */
export function closeOnceAnswered(req: IncomingMessage, res: ServerResponse): void {
  if (!res.headersSent) res.shouldKeepAlive = false;
  res.once('finish', () => closeAfterDraining(req));
}

/** Bounds of a lingering close (nginx's lingering_time and a byte budget): what a refused client may still send. */
const LINGER_MS = 2_000;
const LINGER_BYTES = 64 * 1024 * 1024;

/** Reads and drops the rest of a refused body, then closes: at its end, past LINGER_MS or past LINGER_BYTES. */
function closeAfterDraining(req: IncomingMessage): void {
  let seen = 0;
  const close = (): void => {
    clearTimeout(timer);
    req.destroy();
  };
  const timer = setTimeout(close, LINGER_MS);
  timer.unref();
  req.on('data', (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > LINGER_BYTES) close();
  });
  req.once('end', close);
  req.once('error', close);
  req.resume();
}
