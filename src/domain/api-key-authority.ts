/**
 * Who may manage a user's API keys, and how far (issue 29, item 1). The owner (the dashboard
 * session, and the operator through the admin API or the CLI) may do anything. An API key may
 * manage keys only when it was made a management key, and then only keys it could have created: no
 * wider than itself and not management keys; it can never change itself or grant management.
 * Otherwise a key with a $0 cap could lift its own cap or mint an unlimited key.
 */
import { widerLimit } from './api-key-bounds.ts';
import type { ApiKeyLimits } from './api-key-limits.ts';
import { AppError } from './errors.ts';

/** Who asks: the owner, or one of the user's API keys (checked against the store, not a cache). */
export type KeyAuthority = { readonly by: 'owner' } | { readonly by: 'key'; readonly keyId: string };

export const OWNER_AUTHORITY: KeyAuthority = { by: 'owner' };

export function keyAuthority(keyId: string): KeyAuthority {
  return { by: 'key', keyId };
}

/** What the rules need of a key. */
export interface ManagedKey {
  id: string;
  manageKeys: boolean;
  limits: ApiKeyLimits;
}

const SIGN_IN = 'sign in to the dashboard';

function refuse(message: string, param?: string): AppError {
  return new AppError('forbidden', message, param === undefined ? {} : { param });
}

/** The acting key may manage keys at all (every write of /api/v1/keys asks this first). */
export function assertManagementKey(acting: ManagedKey): void {
  if (!acting.manageKeys) throw refuse(`this API key may not manage keys: ${SIGN_IN}, or use a key made a management key there (or by the admin API or the CLI)`);
}

function assertWithin(acting: ManagedKey, limits: ApiKeyLimits, what: string): void {
  const wider = widerLimit(acting.limits, limits);
  if (wider) throw refuse(`${what} within this API key's own limits: ${wider.field} must be ${wider.requirement}`, wider.field);
}

/**
 * The limits that add up across keys: each key has its own spend, minute and slots, so two keys of
 * $5 spend $10. A management key bound by one of them could widen itself by minting keys, or by
 * raising a sibling's limit, so it may only narrow what exists (the allow-list and the expiry do
 * not add up, and bound the keys it makes).
 */
function summingLimit(limits: ApiKeyLimits): string | undefined {
  if (limits.spendCapMicro !== null) return 'limits.spendCapMicroUsd';
  if (limits.requestsPerMinute !== null) return 'limits.requestsPerMinute';
  if (limits.tokensPerMinute !== null) return 'limits.tokensPerMinute';
  if (limits.concurrentGenerations !== null) return 'limits.concurrentGenerations';
  return undefined;
}

/** A management key creates a key no wider than itself, and never a management key. */
export function assertMayCreate(acting: ManagedKey, created: { limits: ApiKeyLimits; manageKeys: boolean }): void {
  assertManagementKey(acting);
  if (created.manageKeys) throw refuse(`an API key cannot create a management key: ${SIGN_IN}`, 'manageKeys');
  const summing = summingLimit(acting.limits);
  if (summing) throw refuse(`this API key has its own ${summing.slice('limits.'.length)}, which a new key's would add to, so it cannot create keys: ${SIGN_IN}`, summing);
  assertWithin(acting, created.limits, 'this key may create keys only');
}

/**
 * A management key changes another key that it could have created (not a management key, within
 * its limits), and leaves it so. Never itself: its own limits and flag are the owner's to set.
 */
export function assertMayChange(acting: ManagedKey, target: ManagedKey, after: { limits: ApiKeyLimits; manageKeys: boolean }): void {
  assertManagementKey(acting);
  if (target.id === acting.id) throw refuse(`an API key cannot change itself (its name, limits or management): ${SIGN_IN}`);
  assertMayTouch(acting, target);
  if (after.manageKeys) throw refuse(`an API key cannot make a key a management key: ${SIGN_IN}`, 'manageKeys');
  assertWithin(acting, after.limits, 'this key may set limits only');
  if (summingLimit(acting.limits)) {
    const widened = widerLimit(target.limits, after.limits);
    if (widened) throw refuse(`this API key has limits that add up across keys, so it may only narrow another key's: ${widened.field} must be ${widened.requirement}`, widened.field);
  }
}

/** A management key revokes itself, or another key it could have created. */
export function assertMayRevoke(acting: ManagedKey, target: ManagedKey): void {
  assertManagementKey(acting);
  if (target.id !== acting.id) assertMayTouch(acting, target);
}

function assertMayTouch(acting: ManagedKey, target: ManagedKey): void {
  if (target.manageKeys) throw refuse(`an API key cannot change or revoke another management key: ${SIGN_IN}`);
  const wider = widerLimit(acting.limits, target.limits);
  if (wider) throw refuse(`this API key may change or revoke only keys within its own limits, and that key's ${wider.field} is wider`, wider.field);
}
