/**
 * Keys with limits for the key-door tests (issue 29), and what a key has spent. Limited keys are made
 * here only, through POST /api/v1/keys with the owner's key (the harness's unlimited management key).
 */
import assert from 'node:assert/strict';
import { verifyLedger } from '../../src/adapters/db/ledger/ledger-checks.ts';
import type { TestGateway } from './gateway.ts';

export interface LimitedKey {
  id: string;
  key: string;
}

/** A key of the owner's account with `limits` (the body of POST /api/v1/keys). */
export async function createLimitedKey(gw: TestGateway, ownerKey: string, limits: Record<string, unknown>): Promise<LimitedKey> {
  const created = await gw.api(ownerKey, 'POST', '/api/v1/keys', { name: 'limited', limits });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  return (created.body as { data: LimitedKey }).data;
}

export async function balanceMicro(gw: TestGateway, userId: string): Promise<number> {
  const row = await gw.gateway.services.database.db.selectFrom('users').select('balance_micro').where('id', '=', userId).executeTakeFirstOrThrow();
  return Number(row.balance_micro);
}

/** What the key spent in all (its 'total' spend row; none: nothing). */
export async function keySpent(gw: TestGateway, keyId: string): Promise<number> {
  const row = await gw.gateway.services.database.db.selectFrom('api_key_spend').select('spent_micro').where('key_id', '=', keyId).where('period', '=', 'total').executeTakeFirst();
  return Number(row?.spent_micro ?? 0);
}

/** `ledger verify` finds nothing. */
export async function assertBooks(gw: TestGateway): Promise<void> {
  assert.deepEqual(await verifyLedger(gw.gateway.services.database.db), []);
}
