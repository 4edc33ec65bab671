/**
 * News that a credential stopped being valid (an API key revoked, a dashboard session signed out or
 * ended by a password change), for every process: the one that holds an event stream opened with it
 * closes that stream at once. Travels on the event bus; a lost message is caught by the periodic
 * re-check of open streams (http/open-streams.ts), so the bus only makes it immediate.
 */
import type { Logger } from 'pino';
import type { AccountStore } from '../../ports/account-store.port.ts';
import type { AuthStore } from '../../ports/auth-store.port.ts';
import type { EventBus } from '../../ports/event-bus.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';

export const CREDENTIAL_REVOKED_TOPIC = 'credential.revoked';

export interface RevokedCredentials {
  apiKeyIds: string[];
  sessionIds: string[];
}

/**
 * Publishes a revocation. Never throws: the credential is already revoked in the store, which is what
 * counts (a request must not fail after that commit because the bus is away).
 */
export async function publishRevoked(bus: EventBus, revoked: RevokedCredentials, logger?: Logger): Promise<void> {
  if (revoked.apiKeyIds.length === 0 && revoked.sessionIds.length === 0) return;
  try {
    await bus.publish(CREDENTIAL_REVOKED_TOPIC, JSON.stringify(revoked));
  } catch (error) {
    logger?.warn({ err: error }, 'publishing a credential revocation failed; open streams are closed by their next re-check');
  }
}

/** Subscribes to revocations from every process (this one included); malformed messages are ignored. */
export function subscribeRevoked(bus: EventBus, handler: (revoked: RevokedCredentials) => void): Promise<() => Promise<void>> {
  return bus.subscribe(CREDENTIAL_REVOKED_TOPIC, (payload) => {
    const revoked = parseRevoked(payload);
    if (revoked) handler(revoked);
  });
}

function parseRevoked(payload: string): RevokedCredentials | undefined {
  try {
    const value = JSON.parse(payload) as Partial<RevokedCredentials>;
    const ids = (list: unknown): string[] => (Array.isArray(list) ? list.filter((id): id is string => typeof id === 'string') : []);
    return { apiKeyIds: ids(value.apiKeyIds), sessionIds: ids(value.sessionIds) };
  } catch {
    return undefined;
  }
}

/** Ids per query: well under every engine's limit on bound parameters. */
const CHUNK = 500;

/** Which of these credentials are no longer valid, read from the store (the re-check of open streams). */
export async function findEndedCredentials(
  ports: { accounts: AccountStore; auth: AuthStore; uow: UnitOfWork },
  apiKeyIds: string[],
  sessionIds: string[],
  now: number = Date.now(),
): Promise<RevokedCredentials> {
  const ended: RevokedCredentials = { apiKeyIds: [], sessionIds: [] };
  const db = ports.uow.direct;
  for (let i = 0; i < apiKeyIds.length; i += CHUNK) ended.apiKeyIds.push(...(await ports.accounts.findRevokedKeyIds(db, apiKeyIds.slice(i, i + CHUNK))));
  for (let i = 0; i < sessionIds.length; i += CHUNK) ended.sessionIds.push(...(await ports.auth.findEndedSessionIds(db, sessionIds.slice(i, i + CHUNK), now)));
  return ended;
}
