/**
 * The organization store (src/ports/organization-store.port.ts) on both engines: an organization is
 * an account with its owner; members are added once; an invitation is accepted or withdrawn once and
 * never after it expires; the last-owner rule holds under two concurrent removals (the lock).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { accountPortsOf } from '../../src/adapters/db/stores/account-ports.ts';
import { KyselyOrganizationStore } from '../../src/adapters/db/stores/organization-store.ts';
import { generateApiKey } from '../../src/domain/api-key-format.ts';
import { newId } from '../../src/domain/ids.ts';
import type { OrganizationInvitationRow } from '../../src/ports/organization-store.port.ts';
import { describeEachDatabase } from '../support/databases.ts';

const store = new KyselyOrganizationStore();

function invitation(organizationId: string, invitedBy: string, now: number, ttlMs = 60_000): OrganizationInvitationRow {
  const id = newId('inv', now);
  return { id, organization_id: organizationId, email: `${id}@example.com`, role: 'member', token_hash: `hash-${id}`, invited_by: invitedBy, created_at: now, expires_at: now + ttlMs, accepted_at: null, accepted_by: null, revoked_at: null };
}

describeEachDatabase('organization store', (t) => {
  const ports = () => accountPortsOf(t.handle.db);
  const person = async (now: number) => {
    const { accounts, uow } = ports();
    return uow.transaction((tx) => accounts.openAccount(tx, { email: `p-${newId('p', now)}@example.com`, passwordHash: null, isAdmin: false, openingBalanceMicro: 0 }, now));
  };

  test("an organization is an account of kind 'organization' with its owner; members are added once", async () => {
    const { accounts, uow } = ports();
    const now = Date.now();
    const [owner, other] = [await person(now), await person(now)];
    const organization = await uow.transaction((tx) => store.createOrganization(tx, { id: newId('org', now), name: 'Contract', ownerId: owner.id, webhookSecret: 'whsec_contract' }, now));
    assert.equal((await accounts.findUser(uow.direct, organization.id))?.kind, 'organization');
    assert.equal((await store.findOrganization(uow.direct, organization.id))?.name, 'Contract');
    assert.equal(await store.findOrganization(uow.direct, owner.id), undefined, "a person's account is no organization");
    assert.equal((await store.findMember(uow.direct, organization.id, owner.id))?.role, 'owner');

    assert.equal(await store.addMember(uow.direct, { organization_id: organization.id, user_id: other.id, role: 'member', created_at: now + 1 }), true);
    assert.equal(await store.addMember(uow.direct, { organization_id: organization.id, user_id: other.id, role: 'admin', created_at: now + 2 }), false);
    assert.equal((await store.findMember(uow.direct, organization.id, other.id))?.role, 'member', 'the second add changed nothing');
    assert.deepEqual((await store.listMembers(uow.direct, organization.id)).map((m) => [m.user_id, m.role]), [[owner.id, 'owner'], [other.id, 'member']]);
    assert.deepEqual((await store.listMemberships(uow.direct, other.id)).map((m) => [m.organization.id, m.role]), [[organization.id, 'member']]);
    assert.equal(await store.countOwners(uow.direct, organization.id), 1);
    assert.equal(await store.setRole(uow.direct, organization.id, other.id, 'owner'), true);
    assert.equal(await store.countOwners(uow.direct, organization.id), 2);

    const generated = generateApiKey();
    await accounts.addKey(uow.direct, {
      id: newId('key', now), user_id: organization.id, member_id: other.id, name: 'k', prefix: generated.prefix, key_hash: generated.hash, created_at: now, last_used_at: null, revoked_at: null,
      spend_cap_micro: null, spend_cap_period: null, expires_at: null, allowed_models: null, rpm_limit: null, tpm_limit: null, concurrency_limit: null, manage_keys: 0,
    });
    assert.equal((await store.listLiveKeysOfMember(uow.direct, organization.id, other.id)).length, 1);
    assert.equal((await store.listLiveKeysOfMember(uow.direct, organization.id, owner.id)).length, 0);
    assert.equal(await store.removeMember(uow.direct, organization.id, other.id), true);
    assert.equal(await store.removeMember(uow.direct, organization.id, other.id), false);
  });

  test('an invitation is accepted or withdrawn once, and never once expired', async () => {
    const { uow } = ports();
    const now = Date.now();
    const owner = await person(now);
    const organization = await uow.transaction((tx) => store.createOrganization(tx, { id: newId('org', now), name: 'Invites', ownerId: owner.id, webhookSecret: 'whsec_contract' }, now));
    const [accepted, withdrawn, expiring] = [invitation(organization.id, owner.id, now), invitation(organization.id, owner.id, now + 1), invitation(organization.id, owner.id, now + 2, 10)];
    for (const row of [accepted, withdrawn, expiring]) await store.addInvitation(uow.direct, row);
    assert.equal((await store.findInvitationByHash(uow.direct, accepted.token_hash))?.id, accepted.id);
    assert.deepEqual((await store.listPendingInvitations(uow.direct, organization.id, now + 5)).map((i) => i.id), [expiring.id, withdrawn.id, accepted.id]);

    const [first, second] = await Promise.all([store.acceptInvitation(uow.direct, accepted.id, owner.id, now + 5), store.acceptInvitation(uow.direct, accepted.id, owner.id, now + 6)]);
    assert.deepEqual([first, second].sort(), [false, true], 'one acceptance of two at once');
    assert.equal(await store.revokeInvitation(uow.direct, organization.id, accepted.id, now + 7), false, 'an accepted one is not withdrawn');
    assert.equal(await store.revokeInvitation(uow.direct, 'org_someone_else', withdrawn.id, now + 7), false, "another organization's call moves nothing");
    assert.equal(await store.revokeInvitation(uow.direct, organization.id, withdrawn.id, now + 7), true);
    assert.equal(await store.acceptInvitation(uow.direct, withdrawn.id, owner.id, now + 8), false);
    assert.equal(await store.acceptInvitation(uow.direct, expiring.id, owner.id, now + 20), false, 'expired');
    assert.deepEqual(await store.listPendingInvitations(uow.direct, organization.id, now + 20), []);
  });

  test('two owners removing each other at once: the lock leaves one owner', async () => {
    const { uow } = ports();
    const now = Date.now();
    const [a, b] = [await person(now), await person(now)];
    const organization = await uow.transaction((tx) => store.createOrganization(tx, { id: newId('org', now), name: 'Race', ownerId: a.id, webhookSecret: 'whsec_contract' }, now));
    await store.addMember(uow.direct, { organization_id: organization.id, user_id: b.id, role: 'owner', created_at: now });
    const removeIfNotLast = (userId: string) =>
      uow.transaction(async (tx) => {
        await store.lockOrganization(tx, organization.id);
        if ((await store.countOwners(tx, organization.id)) <= 1) return false;
        return store.removeMember(tx, organization.id, userId);
      });
    const results = await Promise.all([removeIfNotLast(a.id), removeIfNotLast(b.id)]);
    assert.deepEqual(results.sort(), [false, true]);
    assert.equal(await store.countOwners(uow.direct, organization.id), 1);
  });
});
