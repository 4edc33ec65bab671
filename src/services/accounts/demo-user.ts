import { OWNER_AUTHORITY } from '../../domain/api-key-authority.ts';
import { AppError } from '../../domain/errors.ts';
import { type AccountPorts, createUser } from './accounts.service.ts';
import type { ApiKeysService } from './api-keys.service.ts';

export const DEMO_EMAIL = 'demo@switchboard.local';
const DEMO_BALANCE_MICRO = 10_000_000;

/**
 * On the very first start (no users at all), creates the demo user with USD 10 and one management key, and
 * returns the key so the caller can print it once. Several processes starting together on one
 * database race on the unique email; only the winner gets a key back.
 */
export async function ensureDemoUser(ports: AccountPorts, apiKeys: ApiKeysService): Promise<{ userId: string; key: string } | undefined> {
  if ((await ports.accounts.countUsers(ports.uow.direct)) > 0) return undefined;
  try {
    const user = await createUser(ports, { email: DEMO_EMAIL, balanceMicro: DEMO_BALANCE_MICRO });
    // The operator's first key, printed once: a management key, so scripts can make narrower keys with it.
    const created = await apiKeys.create(OWNER_AUTHORITY, user.id, { name: 'demo', manageKeys: true });
    return { userId: user.id, key: created.key };
  } catch (error) {
    if (error instanceof AppError && error.code === 'conflict') return undefined;
    if (await ports.accounts.findUserByEmail(ports.uow.direct, DEMO_EMAIL)) return undefined;
    throw error;
  }
}
