import type { FastifyRequest } from 'fastify';
import type { AgentCaller } from '../../../services/agent/agent-caller.ts';
import type { AppServices } from '../../app-services.ts';
import { authOf } from '../../auth.ts';

/**
 * The user (API key or dashboard session, SPEC Authentication 3) and the storefront, resolved by the
 * server from the request's Host header (docs/decisions.md, "Storefronts").
 */
export function agentCaller(request: FastifyRequest, services: AppServices): AgentCaller {
  const auth = authOf(request);
  return { userId: auth.userId, keyId: auth.keyId ?? null, storefront: services.agent.storefronts.resolve(request.headers.host) };
}
