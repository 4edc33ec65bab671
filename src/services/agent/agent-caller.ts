import type { StorefrontConfig } from '../../config/config.types.ts';

/** Who calls an agent endpoint: the user (by API key or dashboard session) on a storefront. */
export interface AgentCaller {
  userId: string;
  /** The API key used, when one was (null for a dashboard session). */
  keyId: string | null;
  storefront: StorefrontConfig;
}

export function ownerOf(caller: AgentCaller): { userId: string; storefront: string } {
  return { userId: caller.userId, storefront: caller.storefront.id };
}
