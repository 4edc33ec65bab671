import { UpstreamHttpClient } from '../../adapters/outbound/upstream-http-client.ts';

/**
 * The client all chat adapters share (and the embeddings and count adapters, with a client of their
 * own). Keep-alive reuses connections across requests; `allowH2` (undici's default) multiplexes on
 * vendors that offer HTTP/2. Pipelining stays at 1: a streamed answer can last minutes, and every
 * request pipelined behind it on the same HTTP/1.1 connection would wait for it (head-of-line
 * blocking); more connections serve throughput better. The time-outs of a call are per attempt
 * (`UpstreamAttempt`), from each provider's `timeoutMs`.
 */
export function createChatUpstreamClient(): UpstreamHttpClient {
  return new UpstreamHttpClient({
    timeoutMs: 300_000,
    keepAliveMs: 30_000,
    keepAliveMaxMs: 300_000,
    pipelining: 1,
    connectTimeoutMs: 10_000,
    userAgent: 'Switchboard/0.1 (+chat)',
  });
}
