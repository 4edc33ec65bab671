/**
 * The single sign-on store (src/ports/oidc-store.port.ts) on both engines: a started sign-in is used
 * once, before it expires, only by its browser and provider; an identity is linked once (the first
 * link stands).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { accountPortsOf } from '../../src/adapters/db/stores/account-ports.ts';
import { kyselyOidcStore as oidc } from '../../src/adapters/db/stores/oidc-store.ts';
import { describeEachDatabase } from '../support/databases.ts';

let counter = 0;
const unique = (name: string) => `${name}-${process.pid}-${Date.now()}-${counter++}`;

describeEachDatabase('single sign-on store', (t) => {
  const ports = () => accountPortsOf(t.handle.db);

  test('a state is used once, by its browser and provider, before it expires', async () => {
    const { uow } = ports();
    const now = Date.now();
    const stateHash = unique('state');
    await oidc.addSignInState(uow.direct, { state_hash: stateHash, provider: 'acme', browser_hash: 'browser-a', code_verifier: 'verifier', nonce: 'nonce', created_at: now, expires_at: now + 600_000 });
    assert.equal(await oidc.consumeSignInState(uow.direct, { stateHash, browserHash: 'browser-b', provider: 'acme' }, now), undefined, 'another browser');
    assert.equal(await oidc.consumeSignInState(uow.direct, { stateHash, browserHash: 'browser-a', provider: 'other' }, now), undefined, 'another provider');
    const key = { stateHash, browserHash: 'browser-a', provider: 'acme' };
    const [first, second] = await Promise.all([oidc.consumeSignInState(uow.direct, key, now), oidc.consumeSignInState(uow.direct, key, now)]);
    assert.deepEqual([first, second].filter((x) => x !== undefined), [{ codeVerifier: 'verifier', nonce: 'nonce' }], 'exactly one of two concurrent uses wins');
    assert.equal(await oidc.consumeSignInState(uow.direct, key, now), undefined, 'used');

    const expired = unique('state');
    await oidc.addSignInState(uow.direct, { state_hash: expired, provider: 'acme', browser_hash: 'b', code_verifier: 'v', nonce: 'n', created_at: now - 700_000, expires_at: now - 100_000 });
    assert.equal(await oidc.consumeSignInState(uow.direct, { stateHash: expired, browserHash: 'b', provider: 'acme' }, now), undefined, 'expired');
    assert.ok((await oidc.deleteExpiredSignInStates(uow.direct, now)) >= 1);
  });

  test('an identity is linked once; the first link stands and a sign-in refreshes its email', async () => {
    const { accounts, uow } = ports();
    const now = Date.now();
    const users = await Promise.all([unique('a'), unique('b')].map((name) => uow.transaction((tx) => accounts.openAccount(tx, { email: `${name}@example.com`, passwordHash: null, isAdmin: false, openingBalanceMicro: 0 }, now))));
    const [a, b] = users as [(typeof users)[number], (typeof users)[number]];
    const subject = unique('sub');
    const row = (userId: string) => ({ issuer: 'https://id.example.com', subject, user_id: userId, email: 'x@example.com', created_at: now, last_sign_in_at: now });
    const added = await Promise.all([oidc.addIdentity(uow.direct, row(a.id)), oidc.addIdentity(uow.direct, row(b.id))]);
    assert.deepEqual(added.filter(Boolean), [true], 'one of two concurrent links wins');
    const linked = await oidc.findIdentity(uow.direct, 'https://id.example.com', subject);
    assert.equal(linked?.user_id, added[0] ? a.id : b.id);
    await oidc.touchIdentity(uow.direct, 'https://id.example.com', subject, 'new@example.com', now + 1);
    const touched = await oidc.findIdentity(uow.direct, 'https://id.example.com', subject);
    assert.equal(touched?.email, 'new@example.com');
    assert.equal(touched?.last_sign_in_at, now + 1);
    assert.equal(await oidc.findIdentity(uow.direct, 'https://other.example.com', subject), undefined, 'identities are per issuer');
  });
});
