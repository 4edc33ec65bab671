/**
 * Organizations (issue 33, items 1-3): an account people share. An owner creates it and invites by
 * email; only the person signed in with the invited address accepts, once. Members spend its balance
 * through their own organization keys, concurrently, and every entry names the member; a member reads
 * only their part of the books. A removed member's keys stop at once (in every process: the fleet test
 * below); the last owner can neither leave nor stop being an owner.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { anthropicClient, openAiClient, startChatFakes } from '../support/chat-gateway.ts';
import { describeEachMode, type TestGateway } from '../support/gateway.ts';
import { parseCsv } from '../support/csv.ts';
import { assertBooks } from '../support/limited-keys.ts';
import { call as callKey, createSharedStores, type GatewayProcess, spawnGateways } from '../support/processes.ts';
import { serviceSkipReason, TEST_DATABASE_URL, TEST_REDIS_URL } from '../support/services.ts';
import { type Browser, call, type SignedUp, signup, uniqueEmail } from '../support/session-browser.ts';

const fakes = await startChatFakes();
after(() => fakes.close());

/** Minutes are aligned to the clock: start a test's requests with at least 20 s of its minute left. */
async function freshMinute(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 20_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

interface Organization {
  id: string;
  name: string;
  role: string;
  balanceMicroUsd: string;
}
interface Entry {
  kind: string;
  amountMicroUsd: string;
  memberId: string | null;
  link: { type: string; id: string | null };
}

const dataOf = <T>(reply: { status: number; body: unknown }, status = 200): T => {
  assert.equal(reply.status, status, JSON.stringify(reply.body));
  return (reply.body as { data?: unknown }).data as T;
};

async function createOrganization(gw: { url: string }, owner: Browser, name = 'Acme'): Promise<Organization> {
  return dataOf<Organization>(await call(gw, owner, 'POST', '/api/v1/organizations', { name }));
}

/** Invites `person` with `role` and has them accept through the link's token. */
async function join(gw: { url: string }, owner: Browser, organizationId: string, person: SignedUp, role = 'member'): Promise<void> {
  const sent = dataOf<{ url: string }>(await call(gw, owner, 'POST', `/api/v1/organizations/${organizationId}/invitations`, { email: person.email, role }));
  const token = new URL(sent.url).searchParams.get('token');
  assert.ok(token);
  const joined = dataOf<Organization>(await call(gw, person, 'POST', '/api/v1/organizations/invitations/accept', { token }));
  assert.equal(joined.role, role);
}

async function orgKey(gw: { url: string }, person: Browser, organizationId: string, name = 'work'): Promise<{ id: string; key: string; memberId: string }> {
  return dataOf(await call(gw, person, 'POST', `/api/v1/organizations/${organizationId}/keys`, { name }));
}

async function credit(gw: TestGateway, accountId: string, cents: number): Promise<void> {
  await gw.admin('POST', `/admin/v1/users/${accountId}/credits`, { amountCents: cents, note: 'test credit' }, { 'idempotency-key': `credit-${accountId}-${cents}-${Date.now()}` });
}

async function ledger(gw: { url: string }, person: Browser, organizationId: string, query = ''): Promise<Entry[]> {
  return dataOf<{ items: Entry[] }>(await call(gw, person, 'GET', `/api/v1/organizations/${organizationId}/ledger?limit=200${query}`)).items;
}

describeEachMode('organizations', (ctx) => {
  before(async () => {
    await ctx.gw.admin('PUT', '/admin/v1/providers/org-openai', { type: 'openai', baseUrl: fakes.openai.baseUrl, keys: [{ secret: 'sk-org-openai-00000000000000001' }] });
    fakes.openai.moreKeys.add('sk-org-openai-00000000000000001');
    await ctx.gw.admin('PUT', '/admin/v1/routes/gpt-5.4-mini', { entries: [{ provider: 'org-openai', model: 'gpt-fake' }] });
  });

  test('an owner invites by email; only the invited address accepts, once; roles bound what each may do', async () => {
    const [alice, bob, carol, mallory] = await Promise.all([signup(ctx.gw, uniqueEmail('alice')), signup(ctx.gw, uniqueEmail('bob')), signup(ctx.gw, uniqueEmail('carol')), signup(ctx.gw, uniqueEmail('mallory'))]);
    const organization = await createOrganization(ctx.gw, alice);
    assert.deepEqual([organization.role, organization.balanceMicroUsd, organization.name], ['owner', '0', 'Acme']);

    const sent = dataOf<{ id: string; email: string; role: string; url: string }>(await call(ctx.gw, alice, 'POST', `/api/v1/organizations/${organization.id}/invitations`, { email: bob.email.toUpperCase() }));
    assert.deepEqual([sent.email, sent.role], [bob.email, 'member']);
    await ctx.gw.gateway.services.organizations.settled();
    const token = new URL(sent.url).searchParams.get('token') ?? '';
    // The link's GET accepts nothing: it sends the browser to the page that asks first.
    const opened = await call(ctx.gw, bob, 'GET', `/api/v1/organizations/invitations/open?token=${token}`);
    assert.equal(opened.status, 302);
    assert.equal(opened.headers.get('location'), `/organizations/join#token=${token}`);
    const wrongPerson = await call(ctx.gw, mallory, 'POST', '/api/v1/organizations/invitations/accept', { token });
    assert.equal(wrongPerson.status, 403, JSON.stringify(wrongPerson.body));
    assert.match(String(wrongPerson.body.error?.message), /sign in with that address/);
    const joined = dataOf<Organization>(await call(ctx.gw, bob, 'POST', '/api/v1/organizations/invitations/accept', { token }));
    assert.deepEqual([joined.id, joined.role], [organization.id, 'member']);
    assert.equal((await call(ctx.gw, bob, 'POST', '/api/v1/organizations/invitations/accept', { token })).status, 404, 'an invitation works once');
    assert.equal((await call(ctx.gw, bob, 'POST', '/api/v1/organizations/invitations/accept', { token: 'not-a-token' })).status, 404);

    const members = dataOf<Array<{ userId: string; email: string; role: string }>>(await call(ctx.gw, bob, 'GET', `/api/v1/organizations/${organization.id}/members`));
    assert.deepEqual(members.map((m) => [m.email, m.role]), [[alice.email, 'owner'], [bob.email, 'member']]);
    assert.deepEqual(dataOf<Organization[]>(await call(ctx.gw, bob, 'GET', '/api/v1/organizations')).map((o) => [o.id, o.role]), [[organization.id, 'member']]);

    // A member neither invites nor changes roles; an outsider does not see the organization at all.
    assert.equal((await call(ctx.gw, bob, 'POST', `/api/v1/organizations/${organization.id}/invitations`, { email: carol.email })).status, 403);
    assert.equal((await call(ctx.gw, bob, 'PATCH', `/api/v1/organizations/${organization.id}/members/${bob.userId}`, { role: 'owner' })).status, 403);
    assert.equal((await call(ctx.gw, mallory, 'GET', `/api/v1/organizations/${organization.id}`)).status, 404);
    assert.equal((await call(ctx.gw, mallory, 'GET', `/api/v1/organizations/${organization.id}/members`)).status, 404);

    // Bad input changes nothing.
    assert.equal((await call(ctx.gw, alice, 'POST', `/api/v1/organizations/${organization.id}/invitations`, { email: bob.email })).status, 409, 'a member already');
    assert.equal((await call(ctx.gw, alice, 'POST', `/api/v1/organizations/${organization.id}/invitations`, { email: 'not an address' })).status, 400);
    assert.equal((await call(ctx.gw, alice, 'POST', `/api/v1/organizations/${organization.id}/invitations`, { email: carol.email, role: 'king' })).status, 400);
    assert.equal((await call(ctx.gw, alice, 'POST', '/api/v1/organizations', { name: '   ' })).status, 400);
    assert.equal((await call(ctx.gw, alice, 'POST', '/api/v1/organizations', { name: 'x' }, { csrf: false })).status, 403, 'the CSRF header is required');

    // A withdrawn invitation's link stops working.
    const withdrawn = dataOf<{ id: string; url: string }>(await call(ctx.gw, alice, 'POST', `/api/v1/organizations/${organization.id}/invitations`, { email: carol.email, role: 'admin' }));
    assert.deepEqual(dataOf<Array<{ id: string }>>(await call(ctx.gw, alice, 'GET', `/api/v1/organizations/${organization.id}/invitations`)).map((i) => i.id), [withdrawn.id]);
    dataOf(await call(ctx.gw, alice, 'DELETE', `/api/v1/organizations/${organization.id}/invitations/${withdrawn.id}`));
    assert.equal((await call(ctx.gw, carol, 'POST', '/api/v1/organizations/invitations/accept', { token: new URL(withdrawn.url).searchParams.get('token') })).status, 404);
    assert.deepEqual(dataOf<unknown[]>(await call(ctx.gw, alice, 'GET', `/api/v1/organizations/${organization.id}/invitations`)), []);

    // An admin manages everyone's keys but not members or money.
    await join(ctx.gw, alice, organization.id, carol, 'admin');
    const bobs = await orgKey(ctx.gw, bob, organization.id);
    assert.equal(bobs.memberId, bob.userId);
    assert.deepEqual(dataOf<Array<{ id: string }>>(await call(ctx.gw, carol, 'GET', `/api/v1/organizations/${organization.id}/keys`)).map((k) => k.id), [bobs.id]);
    assert.deepEqual(dataOf<unknown[]>(await call(ctx.gw, alice, 'GET', `/api/v1/organizations/${organization.id}/keys`)).length, 1);
    const carols = await orgKey(ctx.gw, carol, organization.id);
    assert.deepEqual(dataOf<Array<{ id: string }>>(await call(ctx.gw, bob, 'GET', `/api/v1/organizations/${organization.id}/keys`)).map((k) => k.id), [bobs.id], 'a member sees only their own keys');
    assert.equal((await call(ctx.gw, bob, 'DELETE', `/api/v1/organizations/${organization.id}/keys/${carols.id}`)).status, 404);
    assert.equal((await call(ctx.gw, carol, 'POST', `/api/v1/organizations/${organization.id}/invitations`, { email: mallory.email })).status, 403);
    assert.equal((await call(ctx.gw, carol, 'POST', `/api/v1/organizations/${organization.id}/redeem`, { code: 'ANY-CODE-123' })).status, 403);
    dataOf(await call(ctx.gw, carol, 'DELETE', `/api/v1/organizations/${organization.id}/keys/${bobs.id}`));
    assert.equal((await ctx.gw.api(bobs.key, 'GET', '/api/v1/user/me')).status, 401);
  });

  test("two members spend the organization's balance concurrently through their keys; each entry names its member", async () => {
    const [alice, bob] = await Promise.all([signup(ctx.gw, uniqueEmail('alice')), signup(ctx.gw, uniqueEmail('bob'))]);
    const organization = await createOrganization(ctx.gw, alice, 'Spenders');
    await join(ctx.gw, alice, organization.id, bob);
    await credit(ctx.gw, organization.id, 2_000);
    const [aliceKey, bobKey] = [await orgKey(ctx.gw, alice, organization.id), await orgKey(ctx.gw, bob, organization.id)];

    // An organization's key is the organization's account: its balance, not the person's.
    const me = dataOf<{ id: string; balance: number }>(await ctx.gw.api(bobKey.key, 'GET', '/api/v1/user/me'));
    assert.deepEqual([me.id, me.balance], [organization.id, 2_000]);

    const creates = await Promise.all(
      Array.from({ length: 16 }, (_, i) => ctx.gw.api(i % 2 === 0 ? aliceKey.key : bobKey.key, 'POST', '/api/v1/generation/create', { model: 'z-image-turbo', input: { prompt: `shared ${i}` } })),
    );
    for (const created of creates) assert.equal(created.status, 200, JSON.stringify(created.body));
    const chat = await openAiClient(ctx.gw, bobKey.key).chat.completions.create({ model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'hello' }], max_tokens: 50 });
    assert.ok(chat.id);

    const entries = await waitForEntries(ctx.gw, alice, organization.id, (all) => all.some((e) => e.kind === 'chat_charge'));
    const debits = entries.filter((e) => e.kind === 'generation_debit');
    assert.equal(debits.length, 16);
    assert.deepEqual(
      [debits.filter((e) => e.memberId === alice.userId).length, debits.filter((e) => e.memberId === bob.userId).length],
      [8, 8],
    );
    assert.equal(entries.find((e) => e.kind === 'chat_charge')?.memberId, bob.userId, 'a chat charge names the member of its key');
    assert.equal(entries.find((e) => e.kind === 'credit')?.memberId, null, "the operator's credit names no member");

    // A member reads their own part; an owner reads anyone's.
    const bobsPart = await ledger(ctx.gw, bob, organization.id);
    assert.ok(bobsPart.length >= 9 && bobsPart.every((e) => e.memberId === bob.userId), JSON.stringify(bobsPart));
    assert.equal((await call(ctx.gw, bob, 'GET', `/api/v1/organizations/${organization.id}/ledger?member=${alice.userId}`)).status, 403);
    const alicesPart = await ledger(ctx.gw, alice, organization.id, `&member=${alice.userId}`);
    assert.ok(alicesPart.length >= 8 && alicesPart.every((e) => e.memberId === alice.userId));

    // Every micro-USD came from the organization: the people's own accounts are untouched.
    const spent = entries.filter((e) => e.kind !== 'credit').reduce((sum, e) => sum + Number(e.amountMicroUsd), 0);
    const after = dataOf<Organization>(await call(ctx.gw, alice, 'GET', `/api/v1/organizations/${organization.id}`));
    assert.equal(Number(after.balanceMicroUsd), 20_000_000 + spent);
    for (const person of [alice, bob]) {
      const own = dataOf<{ balanceMicroUsd?: string; balance?: number }>(await call(ctx.gw, person, 'GET', '/api/v1/user/me'));
      assert.equal(own.balance, 0);
    }

    // The organization's statistics and export, for its owners and admins: its members' keys are its buckets.
    const stats = (await call(ctx.gw, alice, 'GET', `/api/v1/organizations/${organization.id}/stats`)).body as unknown as { totals: { requests: number; llmRequests: number }; byApiKey: Array<{ key: string; count: number }> };
    assert.deepEqual([stats.totals.requests, stats.totals.llmRequests], [16, 1]);
    assert.deepEqual(
      Object.fromEntries(stats.byApiKey.map((b) => [b.key, b.count])),
      { [aliceKey.id]: 8, [bobKey.id]: 9 },
    );
    assert.equal((await call(ctx.gw, bob, 'GET', `/api/v1/organizations/${organization.id}/stats`)).status, 403, 'a member reads their own ledger, not the whole');
    const csv = await fetch(`${ctx.gw.url}/api/v1/organizations/${organization.id}/usage/export?type=ledger`, { headers: { cookie: alice.cookie ?? '' } });
    assert.equal(csv.status, 200);
    const rows = parseCsv(await csv.text());
    assert.equal(rows[0]?.at(-1), 'member');
    const csvDebits = rows.filter((r) => r[2] === 'generation_debit');
    assert.equal(csvDebits.length, 16);
    assert.deepEqual(
      csvDebits.map((r) => r.at(-1)).reduce<Record<string, number>>((n, email) => ({ ...n, [email ?? '']: (n[email ?? ''] ?? 0) + 1 }), {}),
      { [alice.email]: 8, [bob.email]: 8 },
      'each debit names the member whose key made it',
    );
    await assertBooks(ctx.gw);
  });

  test("a member's monthly cap holds under 200 concurrent creates through two of their keys; another member is not bound", async () => {
    const [alice, bob] = await Promise.all([signup(ctx.gw, uniqueEmail('alice')), signup(ctx.gw, uniqueEmail('bob'))]);
    const organization = await createOrganization(ctx.gw, alice, 'Capped');
    await join(ctx.gw, alice, organization.id, bob);
    await credit(ctx.gw, organization.id, 100_000);
    const alicesKey = await orgKey(ctx.gw, alice, organization.id);
    const probe = await ctx.gw.api(alicesKey.key, 'POST', '/api/v1/generation/create', { model: 'z-image-turbo', input: { prompt: 'price probe' } });
    const taskId = (probe.body as { data: { taskId: string } }).data.taskId;
    const unit = Number((await ctx.gw.gateway.services.database.db.selectFrom('tasks').select('cost_micro').where('id', '=', taskId).executeTakeFirstOrThrow()).cost_micro);
    assert.ok(unit > 0);

    const membersPath = `/api/v1/organizations/${organization.id}/members/${bob.userId}`;
    for (const bad of [-1, 1.5, '700']) assert.equal((await call(ctx.gw, alice, 'PATCH', membersPath, { monthlyCapMicroUsd: bad })).status, 400, String(bad));
    assert.equal((await call(ctx.gw, bob, 'PATCH', membersPath, { monthlyCapMicroUsd: 10 ** 9 })).status, 403, 'a member does not lift their own cap');
    const members = dataOf<Array<{ userId: string; monthlyCapMicroUsd: number | null }>>(await call(ctx.gw, alice, 'PATCH', membersPath, { monthlyCapMicroUsd: unit * 7 }));
    assert.equal(members.find((m) => m.userId === bob.userId)?.monthlyCapMicroUsd, unit * 7);

    const bobsKeys = [await orgKey(ctx.gw, bob, organization.id, 'one'), await orgKey(ctx.gw, bob, organization.id, 'two')];
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => ctx.gw.api(bobsKeys[i % 2]?.key ?? '', 'POST', '/api/v1/generation/create', { model: 'z-image-turbo', input: { prompt: `capped ${i}` } })),
    );
    const passed = answers.filter((a) => a.status === 200).length;
    const refused = answers.filter((a) => a.status === 402);
    assert.equal(passed, 7, 'exactly what the cap covers');
    assert.equal(refused.length, 193);
    const refusal = refused[0]?.body as { error?: { code: string; message: string } };
    assert.equal(refusal.error?.code, 'key_spend_cap_reached');
    assert.match(refusal.error?.message ?? '', /monthly spend cap in this organization/);
    const after = dataOf<Array<{ userId: string; spentThisMonthMicroUsd: number }>>(await call(ctx.gw, alice, 'GET', `/api/v1/organizations/${organization.id}/members`));
    assert.equal(after.find((m) => m.userId === bob.userId)?.spentThisMonthMicroUsd, unit * 7);

    // A chat request's hold counts against the cap too: none is left for one.
    const chat = await ctx.gw.api(bobsKeys[0]?.key ?? '', 'POST', '/api/v1/chat/completions', { model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 20 });
    assert.equal(chat.status, 402, JSON.stringify(chat.body));
    // The owner is not bound by bob's cap; lifting it lets bob spend again.
    assert.equal((await ctx.gw.api(alicesKey.key, 'POST', '/api/v1/generation/create', { model: 'z-image-turbo', input: { prompt: 'owner' } })).status, 200);
    dataOf(await call(ctx.gw, alice, 'PATCH', membersPath, { monthlyCapMicroUsd: null }));
    assert.equal((await ctx.gw.api(bobsKeys[1]?.key ?? '', 'POST', '/api/v1/generation/create', { model: 'z-image-turbo', input: { prompt: 'uncapped' } })).status, 200);
    const debits = (await ledger(ctx.gw, alice, organization.id)).filter((e) => e.kind === 'generation_debit');
    assert.deepEqual([debits.filter((e) => e.memberId === bob.userId).length, debits.filter((e) => e.memberId === alice.userId).length], [8, 2]);
    await assertBooks(ctx.gw);
  });

  test("the organization's tokens per minute bind all its members' keys together: a 429 in each protocol's shape", async () => {
    const [alice, bob] = await Promise.all([signup(ctx.gw, uniqueEmail('alice')), signup(ctx.gw, uniqueEmail('bob'))]);
    const organization = await createOrganization(ctx.gw, alice, 'Tokens');
    await join(ctx.gw, alice, organization.id, bob);
    await credit(ctx.gw, organization.id, 1_000);
    const [aliceKey, bobKey] = [await orgKey(ctx.gw, alice, organization.id), await orgKey(ctx.gw, bob, organization.id)];
    // Both keys are in the auth cache before the limit is set: setting it reaches them at once.
    for (const k of [aliceKey, bobKey]) assert.equal((await ctx.gw.api(k.key, 'GET', '/api/v1/user/me')).status, 200);
    assert.equal((await call(ctx.gw, bob, 'PATCH', `/api/v1/organizations/${organization.id}`, { tokensPerMinute: 10 ** 9 })).status, 403, 'a member does not set it');
    assert.equal((await call(ctx.gw, alice, 'PATCH', `/api/v1/organizations/${organization.id}`, { tokensPerMinute: 0 })).status, 400);
    const set = dataOf<Organization & { tokensPerMinute: number | null }>(await call(ctx.gw, alice, 'PATCH', `/api/v1/organizations/${organization.id}`, { tokensPerMinute: 3_100 }));
    assert.equal(set.tokensPerMinute, 3_100);
    await freshMinute();
    fakes.openai.enqueue({ text: 'a', usage: { input: 5, output: 10 }, delayMs: 1500 }, { text: 'b', usage: { input: 5, output: 10 }, delayMs: 1500 });
    const ask = (content: string) => ({ model: 'gpt-5.4-mini', messages: [{ role: 'user' as const, content }], max_tokens: 450 });
    // Each may use about 1,500 tokens (its prompt estimate and max_tokens): one of each member fits, a third does not.
    const running = [openAiClient(ctx.gw, aliceKey.key).chat.completions.create(ask('a')), openAiClient(ctx.gw, bobKey.key).chat.completions.create(ask('b'))];
    await new Promise((resolve) => setTimeout(resolve, 400));
    await assert.rejects(openAiClient(ctx.gw, bobKey.key).chat.completions.create(ask('c')), (error: unknown) => {
      assert.ok(error instanceof OpenAI.RateLimitError, String(error));
      assert.match(error.message, /this organization allows 3100 tokens per minute/);
      assert.ok(Number(error.headers?.get('retry-after')) >= 1);
      return true;
    });
    await assert.rejects(anthropicClient(ctx.gw, aliceKey.key).messages.create({ model: 'claude-sonnet-4-6', max_tokens: 450, messages: [{ role: 'user', content: 'd' }] }), (error: unknown) => {
      assert.ok(error instanceof Anthropic.RateLimitError, String(error));
      return true;
    });
    assert.deepEqual((await Promise.all(running)).map((a) => a.choices[0]?.message.content).sort(), ['a', 'b']);
    // Lifted, the members' keys are bound by nothing again.
    dataOf(await call(ctx.gw, alice, 'PATCH', `/api/v1/organizations/${organization.id}`, { tokensPerMinute: null }));
    assert.ok((await openAiClient(ctx.gw, bobKey.key).chat.completions.create(ask('e'))).id);
    await assertBooks(ctx.gw);
  });

  test("an organization in a price group: its members' estimates and debits are the group's price, and their caps count it", async () => {
    const [alice, bob] = await Promise.all([signup(ctx.gw, uniqueEmail('alice')), signup(ctx.gw, uniqueEmail('bob'))]);
    const organization = await createOrganization(ctx.gw, alice, 'Partners');
    await join(ctx.gw, alice, organization.id, bob);
    await credit(ctx.gw, organization.id, 1_000);
    const group = `org-partner-${Date.now()}`;
    await ctx.gw.admin('POST', '/admin/v1/groups', { name: group, multiplier: '1.5' });
    await ctx.gw.admin('PUT', `/admin/v1/users/${organization.id}/group`, { group });
    const bobs = await orgKey(ctx.gw, bob, organization.id);
    const body = { model: 'z-image-turbo', input: { prompt: 'a partner logo' } };
    const list = ((await call(ctx.gw, bob, 'POST', '/api/v1/generation/estimate', body)).body as unknown as { cost: number }).cost;
    const groupPrice = ((await ctx.gw.api(bobs.key, 'POST', '/api/v1/generation/estimate', body)).body as { cost: number }).cost;
    assert.ok(list > 0);
    assert.equal(groupPrice, Math.ceil(list * 1.5), "bob's own account is in no group; the organization's key is");
    assert.equal((await ctx.gw.api(bobs.key, 'POST', '/api/v1/generation/create', body)).status, 200);
    const [debit] = (await ledger(ctx.gw, alice, organization.id)).filter((e) => e.kind === 'generation_debit');
    assert.deepEqual([Number(debit?.amountMicroUsd), debit?.memberId], [-groupPrice, bob.userId], 'the debit is the estimate, to the micro-USD');
    const members = dataOf<Array<{ userId: string; spentThisMonthMicroUsd: number }>>(await call(ctx.gw, alice, 'GET', `/api/v1/organizations/${organization.id}/members`));
    assert.equal(members.find((m) => m.userId === bob.userId)?.spentThisMonthMicroUsd, groupPrice);
    await assertBooks(ctx.gw);
  });

  test('an owner redeems a code for the organization; the credit names them', async () => {
    const [alice, bob] = await Promise.all([signup(ctx.gw, uniqueEmail('alice')), signup(ctx.gw, uniqueEmail('bob'))]);
    const organization = await createOrganization(ctx.gw, alice, 'Redeemers');
    await join(ctx.gw, alice, organization.id, bob);
    const code = await ctx.gw.admin<{ code: string }>('POST', '/admin/v1/redeem-codes', { amountCents: 500 });
    assert.equal((await call(ctx.gw, bob, 'POST', `/api/v1/organizations/${organization.id}/redeem`, { code: code.code })).status, 403, 'a member does not add money');
    const redeemed = dataOf<{ amountMicroUsd: string; balanceMicroUsd: string }>(await call(ctx.gw, alice, 'POST', `/api/v1/organizations/${organization.id}/redeem`, { code: code.code }));
    assert.deepEqual([redeemed.amountMicroUsd, redeemed.balanceMicroUsd], ['5000000', '5000000']);
    const [entry] = await ledger(ctx.gw, alice, organization.id);
    assert.deepEqual([entry?.kind, entry?.memberId], ['redeem_credit', alice.userId]);
    await assertBooks(ctx.gw);
  });

  test("a removed member's keys stop at once; the last owner can neither leave nor step down", async () => {
    const [alice, bob, carol] = await Promise.all([signup(ctx.gw, uniqueEmail('alice')), signup(ctx.gw, uniqueEmail('bob')), signup(ctx.gw, uniqueEmail('carol'))]);
    const organization = await createOrganization(ctx.gw, alice, 'Leavers');
    await join(ctx.gw, alice, organization.id, bob);
    const bobsKeys = [await orgKey(ctx.gw, bob, organization.id, 'one'), await orgKey(ctx.gw, bob, organization.id, 'two')];
    for (const k of bobsKeys) assert.equal((await ctx.gw.api(k.key, 'GET', '/api/v1/user/me')).status, 200);

    assert.equal((await call(ctx.gw, alice, 'DELETE', `/api/v1/organizations/${organization.id}/members/${alice.userId}`)).status, 409, 'the last owner cannot leave');
    assert.equal((await call(ctx.gw, alice, 'PATCH', `/api/v1/organizations/${organization.id}/members/${alice.userId}`, { role: 'admin' })).status, 409);
    assert.equal((await call(ctx.gw, bob, 'DELETE', `/api/v1/organizations/${organization.id}/members/${alice.userId}`)).status, 403, 'a member removes nobody else');

    dataOf(await call(ctx.gw, alice, 'DELETE', `/api/v1/organizations/${organization.id}/members/${bob.userId}`));
    for (const k of bobsKeys) assert.equal((await ctx.gw.api(k.key, 'GET', '/api/v1/user/me')).status, 401, 'refused at once');
    assert.equal((await call(ctx.gw, bob, 'GET', `/api/v1/organizations/${organization.id}`)).status, 404);
    assert.equal((await call(ctx.gw, alice, 'DELETE', `/api/v1/organizations/${organization.id}/members/${bob.userId}`)).status, 404);

    // With a second owner, the first may leave; their own keys of the organization go with them.
    await join(ctx.gw, alice, organization.id, carol, 'owner');
    const alicesKey = await orgKey(ctx.gw, alice, organization.id);
    dataOf(await call(ctx.gw, alice, 'DELETE', `/api/v1/organizations/${organization.id}/members/${alice.userId}`));
    assert.equal((await ctx.gw.api(alicesKey.key, 'GET', '/api/v1/user/me')).status, 401);
    assert.deepEqual(dataOf<Array<{ email: string; role: string }>>(await call(ctx.gw, carol, 'GET', `/api/v1/organizations/${organization.id}/members`)).map((m) => [m.email, m.role]), [[carol.email, 'owner']]);
  });
});

async function waitForEntries(gw: { url: string }, person: Browser, organizationId: string, done: (entries: Entry[]) => boolean, timeoutMs = 10_000): Promise<Entry[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const entries = await ledger(gw, person, organizationId);
    if (done(entries) || Date.now() > deadline) return entries;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('a removed member across two API processes [scaleout]', async () => {
  const skip = (await serviceSkipReason('PostgreSQL', TEST_DATABASE_URL)) ?? (await serviceSkipReason('Redis', TEST_REDIS_URL));
  test("their organization key is refused within 1 s by both processes", { skip }, async () => {
    const stores = await createSharedStores('scaleout', {});
    const fleet: GatewayProcess[] = [];
    try {
      const [api1, api2] = await spawnGateways(stores, ['api', 'api'], fleet);
      const one = { url: api1.url };
      const [alice, bob] = [await signup(one, uniqueEmail('alice')), await signup(one, uniqueEmail('bob'))];
      const organization = await createOrganization(one, alice, 'Fleet');
      await join(one, alice, organization.id, bob);
      const bobs = await orgKey(one, bob, organization.id);
      // Both processes have the key in their auth cache (30 s) before the removal.
      for (const api of [api1, api2]) assert.equal((await callKey(api.url, bobs.key, 'GET', '/api/v1/user/me')).status, 200);
      const removedAt = Date.now();
      dataOf(await call({ url: api2.url }, alice, 'DELETE', `/api/v1/organizations/${organization.id}/members/${bob.userId}`));
      for (const api of [api1, api2]) {
        let status = 200;
        while (status !== 401 && Date.now() - removedAt < 1_000) {
          status = (await callKey(api.url, bobs.key, 'GET', '/api/v1/user/me')).status;
          if (status !== 401) await new Promise((resolve) => setTimeout(resolve, 20));
        }
        assert.equal(status, 401, `${api.url} refused the key within 1 s`);
      }
    } finally {
      await Promise.all(fleet.map((p) => p.stop()));
      await stores.dispose();
    }
  });
});
