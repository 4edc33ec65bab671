import type { FastifyReply } from 'fastify';

/**
 * Headers of every HTML page the gateway serves (the dashboard, the /docs reference): no MIME
 * sniffing, no referrer to other sites, no framing, and the page's own Content-Security-Policy.
 */
export function setPageSecurityHeaders(reply: FastifyReply, contentSecurityPolicy: string): void {
  reply.header('x-content-type-options', 'nosniff');
  reply.header('referrer-policy', 'same-origin');
  reply.header('x-frame-options', 'DENY');
  reply.header('content-security-policy', contentSecurityPolicy);
}
