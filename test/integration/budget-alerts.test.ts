/**
 * Budget alerts (issue 33, item 7): an owner sets thresholds (percentages of a monthly budget, a
 * balance below an amount, an organization's percentages of each member's cap); the workers' check
 * sends one email and one signed webhook per crossing, once per month, in both modes. Bad settings
 * are refused and change nothing; only an owner sets an organization's alerts.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { FakeSmtpServer, mailText } from '../fakes/smtp.fake.ts';
import { describeEachMode, type TestGateway } from '../support/gateway.ts';
import { type Browser, call, type SignedUp, signup, uniqueEmail } from '../support/session-browser.ts';
import { verifySigned, WebhookReceiver } from '../support/webhook-receiver.ts';

const smtp = await FakeSmtpServer.start();
after(() => smtp.close());
const receiver = new WebhookReceiver();
before(() => receiver.start());
after(() => receiver.close());

interface Firing {
  id: string;
  kind: string;
  period: string;
  memberId: string | null;
  thresholdPercent: number | null;
  thresholdMicroUsd: string;
  observedMicroUsd: string;
  notified: boolean;
  email: string;
  webhookDeliveryId: string | null;
}
interface Alerts {
  monthlyBudgetMicroUsd: string | null;
  spendThresholdsPercent: number[];
  balanceBelowMicroUsd: string | null;
  webhookUrl: string | null;
  spentThisMonthMicroUsd: string;
  firings: Firing[];
  webhookSigningSecret?: string;
}
interface Event {
  type: string;
  data: { id: string; kind: string; accountId: string; memberId: string | null; thresholdPercent: number | null; observedMicroUsd: string; thresholdMicroUsd: string };
}

const dataOf = <T>(reply: { status: number; body: unknown }, status = 200): T => {
  assert.equal(reply.status, status, JSON.stringify(reply.body));
  return (reply.body as { data?: unknown }).data as T;
};

async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function credit(gw: TestGateway, accountId: string, cents: number): Promise<void> {
  await gw.admin('POST', `/admin/v1/users/${accountId}/credits`, { amountCents: cents, note: 'test credit' }, { 'idempotency-key': `credit-${accountId}-${cents}-${Date.now()}` });
}

async function generate(gw: TestGateway, key: string, prompt: string): Promise<void> {
  const res = await gw.api(key, 'POST', '/api/v1/generation/create', { model: 'z-image-turbo', input: { prompt } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

async function costOfOne(gw: TestGateway, key: string): Promise<number> {
  const res = await gw.api(key, 'POST', '/api/v1/generation/estimate', { model: 'z-image-turbo', input: { prompt: 'x' } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const micro = (res.body as { cost: number }).cost;
  assert.ok(Number.isSafeInteger(micro) && micro > 0, `an estimate in micro-USD: ${JSON.stringify(res.body)}`);
  return micro;
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeEachMode(
  'budget alerts',
  (ctx) => {
    test('a person: each crossed threshold sends one email and one signed webhook, the highest of those crossed together, once per month', async () => {
      const me = await signup(ctx.gw, uniqueEmail('budget'));
      await credit(ctx.gw, me.userId, 100);
      const key = dataOf<{ key: string }>(await call(ctx.gw, me, 'POST', '/api/v1/keys', { name: 'alerts' })).key;
      const cost = await costOfOne(ctx.gw, key);
      const balance0 = dataOf<{ balance: number }>(await call(ctx.gw, me, 'GET', '/api/v1/user/me')).balance * 10_000;
      const url = receiver.url('budget-person');

      // Bad settings: 400, and nothing is stored.
      assert.equal((await call(ctx.gw, me, 'PUT', '/api/v1/budget-alerts', { spendThresholdsPercent: [50] })).status, 400, 'percentages need a budget');
      assert.equal((await call(ctx.gw, me, 'PUT', '/api/v1/budget-alerts', { monthlyBudgetMicroUsd: 1000, spendThresholdsPercent: [0] })).status, 400);
      assert.equal((await call(ctx.gw, me, 'PUT', '/api/v1/budget-alerts', { monthlyBudgetMicroUsd: 1000, spendThresholdsPercent: [50], webhookUrl: 'ftp://example.com/x' })).status, 400);
      assert.equal((await call(ctx.gw, me, 'PUT', '/api/v1/budget-alerts', { memberCapThresholdsPercent: [50] })).status, 400, 'member caps are for organizations');
      assert.equal((await call(ctx.gw, me, 'PUT', '/api/v1/budget-alerts', { monthlyBudgetMicroUsd: 1000, spendThresholdsPercent: [50], colour: 'red' })).status, 400);
      assert.equal(dataOf<Alerts>(await call(ctx.gw, me, 'GET', '/api/v1/budget-alerts')).monthlyBudgetMicroUsd, null);
      assert.equal((await ctx.gw.api(key, 'GET', '/api/v1/budget-alerts')).status, 401, 'a key does not set alerts');

      const budget = 4 * cost;
      const balanceBelow = balance0 - Math.floor(2.5 * cost);
      const set = dataOf<Alerts>(await call(ctx.gw, me, 'PUT', '/api/v1/budget-alerts', { monthlyBudgetMicroUsd: budget, spendThresholdsPercent: [100, 25, 50], balanceBelowMicroUsd: balanceBelow, webhookUrl: url }));
      assert.deepEqual(set.spendThresholdsPercent, [25, 50, 100]);

      await generate(ctx.gw, key, 'first');
      const first = await until('the 25 % crossing', async () => dataOf<Alerts>(await call(ctx.gw, me, 'GET', '/api/v1/budget-alerts')), (a) => a.firings.length >= 1);
      assert.deepEqual(first.firings.map((f) => [f.kind, f.thresholdPercent, f.notified]), [['spend', 25, true]]);
      assert.equal(first.firings[0]?.observedMicroUsd, String(cost));

      // Two more: 75 % of the budget (50 % is crossed; 25 % fired already) and the balance below its line.
      await generate(ctx.gw, key, 'second');
      await generate(ctx.gw, key, 'third');
      const later = await until('the 50 % and balance crossings', async () => dataOf<Alerts>(await call(ctx.gw, me, 'GET', '/api/v1/budget-alerts')), (a) => a.firings.length >= 3);
      assert.deepEqual(later.firings.map((f) => [f.kind, f.thresholdPercent]).sort(), [['balance_below', null], ['spend', 25], ['spend', 50]]);
      assert.equal(later.spentThisMonthMicroUsd, String(3 * cost));

      const mails = await smtp.mailsTo(me.email, 3);
      assert.equal(mails.length, 3);
      const texts = mails.map(mailText);
      assert.ok(texts.some((t) => t.includes('past 25% of its $' )), texts.join('\n---\n'));
      assert.ok(texts.some((t) => t.includes('past 50% of its $')), texts.join('\n---\n'));
      assert.ok(mails.some((m) => m.data.includes('balance is below')));

      const secret = dataOf<{ secret: string }>(await call(ctx.gw, me, 'GET', '/api/v1/webhooks/secret')).secret;
      const deliveries = await until('three webhooks', async () => receiver.at(url), (d) => d.length >= 3);
      const events = deliveries.map((d) => verifySigned(secret, d) as Event);
      assert.deepEqual(events.map((e) => e.type).sort(), ['budget.balance_below', 'budget.spend', 'budget.spend']);
      assert.ok(events.every((e) => e.data.accountId === me.userId));
      assert.deepEqual(new Set(deliveries.map((d) => d.headers['webhook-id'])), new Set(later.firings.map((f) => f.id)));

      // More rounds change nothing: once per month.
      await wait(1_000);
      assert.equal(dataOf<Alerts>(await call(ctx.gw, me, 'GET', '/api/v1/budget-alerts')).firings.length, 3);
      assert.equal(receiver.at(url).length, 3);
      assert.equal(smtp.received.filter((m) => m.to.includes(me.email)).length, 3);

      // A new budget arms its thresholds again; turning alerts off stops them.
      const rearmed = dataOf<Alerts>(await call(ctx.gw, me, 'PUT', '/api/v1/budget-alerts', { monthlyBudgetMicroUsd: 3 * cost, spendThresholdsPercent: [90, 100], email: false, webhookUrl: url }));
      assert.equal(rearmed.spentThisMonthMicroUsd, String(3 * cost), 'the count is kept');
      const crossedAgain = await until('the new budget crossed', async () => dataOf<Alerts>(await call(ctx.gw, me, 'GET', '/api/v1/budget-alerts')), (a) => a.firings.length >= 5);
      const fresh = crossedAgain.firings.filter((f) => f.thresholdMicroUsd !== String(cost) && f.kind === 'spend' && (f.thresholdPercent === 90 || f.thresholdPercent === 100));
      assert.deepEqual(fresh.map((f) => [f.thresholdPercent, f.notified, f.email]).sort(), [[100, true, 'none'], [90, false, 'none']], 'only the highest is sent; email off');
      await until('the fourth webhook', async () => receiver.at(url), (d) => d.length >= 4);
      assert.equal((await call(ctx.gw, me, 'DELETE', '/api/v1/budget-alerts')).status, 200);
      assert.equal((await call(ctx.gw, me, 'DELETE', '/api/v1/budget-alerts')).status, 404);
      await wait(600);
      assert.equal(receiver.at(url).length, 4);
      assert.equal(smtp.received.filter((m) => m.to.includes(me.email)).length, 3);
    });

    test("an organization: a member's cap crossing mails the owners and that member and is signed with the organization's secret; only an owner sets alerts", async () => {
      const [alice, bob] = await Promise.all([signup(ctx.gw, uniqueEmail('alice')), signup(ctx.gw, uniqueEmail('bob'))]);
      const organization = dataOf<{ id: string }>(await call(ctx.gw, alice, 'POST', '/api/v1/organizations', { name: 'Budgeted' }));
      await join(ctx.gw, alice, organization.id, bob);
      await credit(ctx.gw, organization.id, 100);
      const bobsKey = dataOf<{ key: string }>(await call(ctx.gw, bob, 'POST', `/api/v1/organizations/${organization.id}/keys`, { name: 'work' })).key;
      const cost = await costOfOne(ctx.gw, bobsKey);
      assert.equal((await call(ctx.gw, alice, 'PATCH', `/api/v1/organizations/${organization.id}/members/${bob.userId}`, { monthlyCapMicroUsd: 2 * cost })).status, 200);
      const url = receiver.url('budget-org');

      const path = `/api/v1/organizations/${organization.id}/budget-alerts`;
      assert.equal((await call(ctx.gw, bob, 'PUT', path, { memberCapThresholdsPercent: [50] })).status, 403, 'a member does not set them');
      assert.equal((await call(ctx.gw, bob, 'GET', path)).status, 403);
      const set = dataOf<Alerts>(await call(ctx.gw, alice, 'PUT', path, { memberCapThresholdsPercent: [50, 100], webhookUrl: url }));
      assert.equal(set.webhookUrl, url);
      const secret = dataOf<Alerts>(await call(ctx.gw, alice, 'GET', path)).webhookSigningSecret;
      assert.ok(secret?.startsWith('whsec_'));
      // Bob's own personal alerts are his, not the organization's.
      assert.equal(dataOf<Alerts>(await call(ctx.gw, bob, 'GET', '/api/v1/budget-alerts')).firings.length, 0);

      await generate(ctx.gw, bobsKey, 'half of the cap');
      const alerts = await until('the member crossing', async () => dataOf<Alerts>(await call(ctx.gw, alice, 'GET', path)), (a) => a.firings.length >= 1);
      assert.deepEqual(alerts.firings.map((f) => [f.kind, f.memberId, f.thresholdPercent]), [['member_cap', bob.userId, 50]]);
      const [toAlice] = await smtp.mailsTo(alice.email);
      const toBob = (await smtp.mailsTo(bob.email, 2)).at(-1); // after his invitation
      assert.ok(toAlice && toBob);
      assert.ok(mailText(toAlice).includes('Budgeted'), mailText(toAlice));
      assert.ok(mailText(toBob).includes('past 50% of their $'), mailText(toBob));
      const [delivery] = await until('the webhook', async () => receiver.at(url), (d) => d.length >= 1);
      const event = verifySigned(secret ?? '', delivery) as Event;
      assert.deepEqual([event.type, event.data.accountId, event.data.memberId, event.data.observedMicroUsd], ['budget.member_cap', organization.id, bob.userId, String(cost)]);
      await wait(800);
      assert.equal(receiver.at(url).length, 1);
      assert.equal(smtp.received.filter((m) => m.to.includes(alice.email)).length, 1);
    });
  },
  { env: { SMTP_URL: smtp.url, MAIL_FROM: 'Switchboard <no-reply@example.test>', SWITCHBOARD_BUDGET_ALERT_CHECK_MS: '200' } },
);

async function join(gw: { url: string }, owner: Browser, organizationId: string, person: SignedUp): Promise<void> {
  const sent = dataOf<{ url: string }>(await call(gw, owner, 'POST', `/api/v1/organizations/${organizationId}/invitations`, { email: person.email }));
  const token = new URL(sent.url).searchParams.get('token');
  assert.ok(token);
  dataOf(await call(gw, person, 'POST', '/api/v1/organizations/invitations/accept', { token }));
}
