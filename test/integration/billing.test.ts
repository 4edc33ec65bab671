/**
 * Money in, against whole gateways in both modes: Stripe Checkout top-ups through a fake Stripe that
 * follows its public API (credit exactly once, whatever is replayed or delivered at once; forged,
 * stale and unpaid events move nothing), redeem codes (once per user, never past their maximum under
 * concurrency, expired and withdrawn ones refused), the user's ledger with its links and holds, and
 * 402 answers that say where to add funds. The books verify at the end.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { verifyLedger } from '../../src/adapters/db/ledger/ledger-checks.ts';
import { StripeFake } from '../fakes/stripe.fake.ts';
import { ADMIN_TOKEN, describeEachMode, startTestGateway, type TestGateway } from '../support/gateway.ts';

const stripe = await StripeFake.start();
after(() => stripe.close());

interface Checkout {
  id: string;
  status: string;
  amountCents: number;
  url: string | null;
}
interface Entry {
  id: string;
  kind: string;
  amountMicroUsd: string;
  balanceAfterMicroUsd: string;
  link: { type: string; id: string | null; checkoutId?: string | null; agentConversationId?: string | null };
}
type ErrorBody = { error: { code: string; message: string; param?: string } };

const data = <T>(body: unknown) => (body as { data: T }).data;
const errorOf = (body: unknown) => (body as ErrorBody).error;

async function balanceMicro(gw: TestGateway, key: string): Promise<number> {
  const res = await gw.api(key, 'GET', '/api/v1/billing');
  assert.equal(res.status, 200);
  return Number(data<{ balanceMicroUsd: string }>(res.body).balanceMicroUsd);
}

async function startTopup(gw: TestGateway, key: string, amountCents: number): Promise<{ checkout: Checkout; sessionId: string }> {
  const res = await gw.api(key, 'POST', '/api/v1/billing/checkout', { amountCents });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const checkout = data<Checkout>(res.body);
  const sessionId = /\/c\/pay\/(cs_test_\w+)$/.exec(checkout.url ?? '')?.[1];
  assert.ok(sessionId, `a hosted page url: ${checkout.url}`);
  return { checkout, sessionId };
}

describeEachMode(
  'billing: top-ups, redeem codes, the user ledger',
  (ctx) => {
    const setWebhook = () => {
      stripe.webhookUrl = `${ctx.gw.url}/api/v1/billing/webhooks/stripe`;
    };

    test('a paid checkout is credited once; the session was created as Stripe expects', async () => {
      setWebhook();
      const { userId, key } = await ctx.gw.createUser(0);
      const summary = await ctx.gw.api(key, 'GET', '/api/v1/billing');
      assert.deepEqual(data<{ topups: unknown }>(summary.body).topups, { enabled: true, minCents: 500, maxCents: 100_000 });
      const { checkout, sessionId } = await startTopup(ctx.gw, key, 1250);
      assert.equal(checkout.status, 'created');
      const sent = stripe.creates.at(-1);
      assert.ok(sent);
      assert.equal(sent.form.get('line_items[0][price_data][unit_amount]'), '1250');
      assert.equal(sent.form.get('line_items[0][price_data][currency]'), 'usd');
      assert.equal(sent.form.get('client_reference_id'), checkout.id);
      assert.equal(sent.form.get('metadata[user_id]'), userId);
      assert.equal(sent.form.get('success_url'), `${ctx.gw.url}/billing?checkout=${checkout.id}`);
      assert.ok(sent.idempotencyKey?.includes(checkout.id));
      assert.equal(sent.stripeVersion, '2026-10-28.endive', 'every Stripe call pins its API version');

      const paid = await stripe.pay(sessionId);
      assert.equal(paid.status, 200, paid.body);
      assert.equal(JSON.parse(paid.body).result, 'credited');
      assert.equal(await balanceMicro(ctx.gw, key), 12_500_000);
      const again = await stripe.deliver(stripe.event(sessionId));
      assert.equal(again.status, 200);
      assert.equal(JSON.parse(again.body).result, 'already');
      assert.equal(await balanceMicro(ctx.gw, key), 12_500_000);

      const state = await ctx.gw.api(key, 'GET', `/api/v1/billing/checkout/${checkout.id}`);
      assert.equal(data<Checkout>(state.body).status, 'paid');
      assert.equal(data<Checkout>(state.body).url, null);
      const ledger = await ctx.gw.api(key, 'GET', '/api/v1/billing/ledger');
      const entries = data<{ items: Entry[] }>(ledger.body).items;
      assert.equal(entries.length, 1);
      assert.equal(entries[0]?.kind, 'topup_credit');
      assert.equal(entries[0]?.amountMicroUsd, '12500000');
      assert.deepEqual(entries[0]?.link, { type: 'topup', id: sessionId, checkoutId: checkout.id });

      // Another user cannot read it.
      const other = await ctx.gw.createUser(0);
      assert.equal((await ctx.gw.api(other.key, 'GET', `/api/v1/billing/checkout/${checkout.id}`)).status, 404);
    });

    test('the same event delivered many times at once credits once', async () => {
      setWebhook();
      const { key } = await ctx.gw.createUser(0);
      const { sessionId } = await startTopup(ctx.gw, key, 500);
      await stripe.pay(sessionId).then((d) => assert.equal(d.status, 200));
      const { sessionId: second } = await startTopup(ctx.gw, key, 700);
      const event = (() => {
        const s = stripe.sessions.get(second);
        assert.ok(s);
        s.payment_status = 'paid';
        s.status = 'complete';
        return stripe.event(second);
      })();
      const deliveries = await Promise.all(Array.from({ length: 8 }, () => stripe.deliver(event)));
      assert.deepEqual(
        deliveries.map((d) => d.status),
        Array(8).fill(200),
      );
      assert.equal(deliveries.filter((d) => JSON.parse(d.body).result === 'credited').length, 1);
      assert.equal(await balanceMicro(ctx.gw, key), 12_000_000);
      const ledger = await ctx.gw.api(key, 'GET', '/api/v1/billing/ledger?kind=topup_credit');
      assert.equal(data<{ items: Entry[] }>(ledger.body).items.length, 2);
    });

    test('forged, stale, tampered and unsigned events are refused with 400 and move nothing', async () => {
      setWebhook();
      const { key } = await ctx.gw.createUser(0);
      const { sessionId } = await startTopup(ctx.gw, key, 900);
      const s = stripe.sessions.get(sessionId);
      assert.ok(s);
      s.payment_status = 'paid';
      const event = stripe.event(sessionId);
      const body = JSON.stringify(event);
      const attempts = [
        await stripe.deliver(event, { secret: 'whsec_not_the_secret' }),
        await stripe.deliver(event, { timestamp: Math.floor(Date.now() / 1000) - 301 }),
        await stripe.deliver(event, { timestamp: Math.floor(Date.now() / 1000) + 400 }),
        await stripe.deliver(event, { signatureHeader: 'garbage' }),
        await stripe.deliver(event, { signatureHeader: `t=${Math.floor(Date.now() / 1000)}` }),
        // Signed over one body, another body sent: the signature covers the exact bytes.
        await (async () => {
          const signed = stripe.deliver(event, { rawBody: body });
          await signed;
          const { stripeSignatureHeader } = await import('../../src/providers/payments/stripe/stripe-signature.ts');
          const header = stripeSignatureHeader(stripe.webhookSecret, Math.floor(Date.now() / 1000), body);
          const res = await fetch(stripe.webhookUrl, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': header }, body: body.replace('"amount_total":900', '"amount_total":90000') });
          return { status: res.status, body: await res.text() };
        })(),
      ];
      // The untouched, signed body above (rawBody) was genuine: it credited; every other attempt was refused.
      assert.deepEqual(
        attempts.map((a) => a.status),
        [400, 400, 400, 400, 400, 400],
      );
      assert.equal(errorOf(JSON.parse(attempts[0]?.body ?? '{}')).code, 'invalid_input');
      assert.equal(await balanceMicro(ctx.gw, key), 9_000_000, 'only the genuine delivery credited');
      const unsigned = await fetch(stripe.webhookUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      assert.equal(unsigned.status, 400);
      assert.equal(await balanceMicro(ctx.gw, key), 9_000_000);
    });

    test('a paid session with another amount or currency is held for review, answered 200, and credits nothing', async () => {
      setWebhook();
      const { userId, key } = await ctx.gw.createUser(0);
      const { checkout, sessionId } = await startTopup(ctx.gw, key, 1500);
      const s = stripe.sessions.get(sessionId);
      assert.ok(s);
      s.payment_status = 'paid';
      s.status = 'complete';
      s.amount_total = 150;
      const delivered = await stripe.deliver(stripe.event(sessionId));
      // A refusal would make Stripe deliver it again for three days: the event is genuine, so it is acknowledged.
      assert.equal(delivered.status, 200, delivered.body);
      assert.equal(JSON.parse(delivered.body).result, 'review');
      const again = await stripe.deliver(stripe.event(sessionId));
      assert.equal(again.status, 200);
      assert.equal(JSON.parse(again.body).result, 'already');
      assert.equal(await balanceMicro(ctx.gw, key), 0, 'nothing credited');
      const state = await ctx.gw.api(key, 'GET', `/api/v1/billing/checkout/${checkout.id}`);
      assert.equal(data<Checkout>(state.body).status, 'review');

      // The operator sees it: the admin API lists it with what was paid, and the books stay balanced.
      const admin = await fetch(`${ctx.gw.url}/admin/v1/checkouts/review`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      assert.equal(admin.status, 200);
      const held = ((await admin.json()) as { data: Array<Record<string, unknown>> }).data.find((c) => c.id === checkout.id);
      assert.deepEqual(held && { userId: held.userId, sessionId: held.sessionId, expected: held.expectedMicroUsd, paid: held.paidAmountMinor, currency: held.paidCurrency }, {
        userId,
        sessionId,
        expected: '15000000',
        paid: 150,
        currency: 'usd',
      });
      assert.equal((await fetch(`${ctx.gw.url}/admin/v1/checkouts/review`)).status, 401);
      assert.deepEqual(await verifyLedger(ctx.gw.gateway.services.database.db), []);

      // Another currency, right amount: held the same way.
      const second = await startTopup(ctx.gw, key, 800);
      const t = stripe.sessions.get(second.sessionId);
      assert.ok(t);
      t.payment_status = 'paid';
      t.currency = 'eur';
      assert.equal(JSON.parse((await stripe.deliver(stripe.event(second.sessionId))).body).result, 'review');
      assert.equal(await balanceMicro(ctx.gw, key), 0);
    });

    test('a completed but unpaid session credits nothing until its delayed payment succeeds', async () => {
      setWebhook();
      const { key } = await ctx.gw.createUser(0);
      const { checkout, sessionId } = await startTopup(ctx.gw, key, 600);
      const s = stripe.sessions.get(sessionId);
      assert.ok(s);
      s.status = 'complete';
      const pending = await stripe.deliver(stripe.event(sessionId));
      assert.equal(pending.status, 200);
      assert.equal(JSON.parse(pending.body).result, 'pending');
      assert.equal(await balanceMicro(ctx.gw, key), 0);
      const ignored = await stripe.deliver({ id: 'evt_x', object: 'event', type: 'customer.created', data: { object: { id: 'cus_1', object: 'customer' } } });
      assert.equal(JSON.parse(ignored.body).result, 'ignored');
      s.payment_status = 'paid';
      const succeeded = await stripe.deliver(stripe.event(sessionId, 'checkout.session.async_payment_succeeded'));
      assert.equal(JSON.parse(succeeded.body).result, 'credited');
      assert.equal(await balanceMicro(ctx.gw, key), 6_000_000);
      const state = await ctx.gw.api(key, 'GET', `/api/v1/billing/checkout/${checkout.id}`);
      assert.equal(data<Checkout>(state.body).status, 'paid');
      // An expired session of another checkout: marked, no money.
      const { checkout: later, sessionId: laterSession } = await startTopup(ctx.gw, key, 500);
      const expired = await stripe.deliver(stripe.event(laterSession, 'checkout.session.expired'));
      assert.equal(JSON.parse(expired.body).result, 'expired');
      assert.equal(data<Checkout>((await ctx.gw.api(key, 'GET', `/api/v1/billing/checkout/${later.id}`)).body).status, 'expired');
      assert.equal(await balanceMicro(ctx.gw, key), 6_000_000);
    });

    test('checkout input is checked: bounds, fields, Idempotency-Key', async () => {
      const { key } = await ctx.gw.createUser(0);
      const creates = stripe.creates.length;
      for (const body of [{ amountCents: 499 }, { amountCents: 100_001 }, { amountCents: 10.5 }, { amountCents: '1000' }, { amountCents: 1000, extra: 1 }, {}]) {
        const res = await ctx.gw.api(key, 'POST', '/api/v1/billing/checkout', body);
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(errorOf(res.body).code, 'invalid_input');
      }
      assert.equal(stripe.creates.length, creates, 'nothing reached Stripe');
      const post = (amountCents: number) =>
        fetch(`${ctx.gw.url}/api/v1/billing/checkout`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': 'topup-1' },
          body: JSON.stringify({ amountCents }),
        });
      const first = (await (await post(2000)).json()) as { data: Checkout };
      const retry = (await (await post(2000)).json()) as { data: Checkout };
      assert.equal(retry.data.id, first.data.id);
      assert.equal(retry.data.url, first.data.url);
      const other = await post(3000);
      assert.equal(other.status, 409);
      assert.equal((await ctx.gw.api(undefined, 'POST', '/api/v1/billing/checkout', { amountCents: 1000 })).status, 401);
    });

    test('redeem codes: created by an admin, redeemed once per user, bounded; unknown, used up, expired and withdrawn answer alike', async () => {
      const created = await ctx.gw.admin<{ id: string; code: string; codeHint: string; status: string }>('POST', '/admin/v1/redeem-codes', { amountCents: 300, maxRedemptions: 2, note: 'launch' });
      assert.match(created.code, /^[A-Z2-9]{4}(-[A-Z2-9]{4}){3}$/);
      assert.equal(created.status, 'active');
      const users = await Promise.all(Array.from({ length: 5 }, () => ctx.gw.createUser(0)));
      const [alice] = users;
      assert.ok(alice);
      // Typed back in lower case with spaces: the same code.
      const first = await ctx.gw.api(alice.key, 'POST', '/api/v1/billing/redeem', { code: ` ${created.code.toLowerCase()} ` });
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.equal(await balanceMicro(ctx.gw, alice.key), 3_000_000);
      const twice = await ctx.gw.api(alice.key, 'POST', '/api/v1/billing/redeem', { code: created.code });
      assert.equal(twice.status, 409);
      assert.equal(errorOf(twice.body).code, 'redeem_code_already_redeemed');
      // Four more users at once, one redemption left: exactly one wins.
      const rush = await Promise.all(users.slice(1).map((u) => ctx.gw.api(u.key, 'POST', '/api/v1/billing/redeem', { code: created.code })));
      assert.equal(rush.filter((r) => r.status === 200).length, 1);
      const usedUp = rush.filter((x) => x.status !== 200);
      for (const r of usedUp) assert.equal(r.status, 404);
      const list = await ctx.gw.admin<{ data: Array<{ id: string; redemptions: number; status: string; code?: string }> }>('GET', '/admin/v1/redeem-codes');
      const listed = list.data.find((c) => c.id === created.id);
      assert.equal(listed?.redemptions, 2);
      assert.equal(listed?.status, 'used_up');
      assert.equal(listed?.code, undefined, 'the code itself is never listed');

      // The same user twice at once: one credit.
      const solo = await ctx.gw.admin<{ code: string }>('POST', '/admin/v1/redeem-codes', { amountCents: 100, maxRedemptions: 10 });
      const bob = await ctx.gw.createUser(0);
      const both = await Promise.all(Array.from({ length: 4 }, () => ctx.gw.api(bob.key, 'POST', '/api/v1/billing/redeem', { code: solo.code })));
      assert.equal(both.filter((r) => r.status === 200).length, 1);
      assert.equal(await balanceMicro(ctx.gw, bob.key), 1_000_000);

      const own = await ctx.gw.admin<{ id: string; code: string }>('POST', '/admin/v1/redeem-codes', { amountCents: 100, code: `SPRING-${Date.now()}` });
      await ctx.gw.admin('POST', `/admin/v1/redeem-codes/${own.id}/disable`);
      const withdrawn = await ctx.gw.api(bob.key, 'POST', '/api/v1/billing/redeem', { code: own.code });
      const dup = await ctx.gw.api(ADMIN_TOKEN, 'POST', '/admin/v1/redeem-codes', { amountCents: 100, code: own.code });
      assert.equal(dup.status, 409);

      const soon = await ctx.gw.admin<{ code: string }>('POST', '/admin/v1/redeem-codes', { amountCents: 100, expiresAt: new Date(Date.now() + 300).toISOString() });
      await new Promise((r) => setTimeout(r, 400));
      const late = await ctx.gw.api(bob.key, 'POST', '/api/v1/billing/redeem', { code: soon.code });
      const unknown = await ctx.gw.api(bob.key, 'POST', '/api/v1/billing/redeem', { code: 'NOPE-NOPE-NOPE-NOPE' });
      // A guess learns nothing but "not this one": the same status and the same error, whatever the reason.
      for (const [why, res] of [['used up', usedUp[0]], ['withdrawn', withdrawn], ['expired', late]] as const) {
        assert.equal(res?.status, unknown.status, why);
        assert.deepEqual(errorOf(res?.body), errorOf(unknown.body), why);
      }
      assert.equal(unknown.status, 404);
      assert.equal(errorOf(unknown.body).code, 'redeem_code_invalid');
      for (const body of [{ amountCents: 0 }, { amountCents: 100, maxRedemptions: 0 }, { amountCents: 100, expiresAt: '2001-01-01T00:00:00Z' }, { amountCents: 100, code: 'a b' }]) {
        assert.equal((await ctx.gw.api(ADMIN_TOKEN, 'POST', '/admin/v1/redeem-codes', body)).status, 400, JSON.stringify(body));
      }
      assert.equal((await ctx.gw.api(bob.key, 'POST', '/admin/v1/redeem-codes', { amountCents: 100 })).status, 401, 'a user key is not an admin token');
      assert.equal(await balanceMicro(ctx.gw, bob.key), 1_000_000);
    });

    test('redeem attempts are limited per key and per account, before the code is looked at', async () => {
      const { userId, key } = await ctx.gw.createUser(0);
      const second = await ctx.gw.admin<{ key: string }>('POST', `/admin/v1/users/${userId}/api-keys`, { name: 'second' });
      const good = await ctx.gw.admin<{ code: string }>('POST', '/admin/v1/redeem-codes', { amountCents: 100 });
      const guess = (k: string, i: number) => ctx.gw.api(k, 'POST', '/api/v1/billing/redeem', { code: `GUESS-${i}-${Date.now()}` });
      // Ten per key (the default) ...
      const first = [];
      for (let i = 0; i < 10; i++) first.push((await guess(key, i)).status);
      assert.deepEqual(first, Array(10).fill(404));
      const limited = await guess(key, 10);
      assert.equal(limited.status, 429);
      assert.equal(errorOf(limited.body).code, 'rate_limited');
      assert.ok(Number(limited.headers.get('retry-after')) > 0, 'Retry-After is sent');
      // ... and a right code is refused too while the key is limited: no credit.
      assert.equal((await ctx.gw.api(key, 'POST', '/api/v1/billing/redeem', { code: good.code })).status, 429);
      assert.equal(await balanceMicro(ctx.gw, key), 0);
      // Another key of the account has its own ten, within the account's twenty.
      const more = [];
      for (let i = 0; i < 10; i++) more.push((await guess(second.key, 100 + i)).status);
      assert.equal(more.filter((s) => s === 404).length, 8, `the account allows 20 in all: ${more.join(',')}`);
      assert.equal(more.filter((s) => s === 429).length, 2);
      // Another account is not affected.
      const other = await ctx.gw.createUser(0);
      assert.equal((await ctx.gw.api(other.key, 'POST', '/api/v1/billing/redeem', { code: good.code })).status, 200);
    });

    test('checkout sessions are limited per user; refused ones never reach the provider', async () => {
      const { key } = await ctx.gw.createUser(0);
      const creates = stripe.creates.length;
      const statuses = await Promise.all(Array.from({ length: 14 }, () => ctx.gw.api(key, 'POST', '/api/v1/billing/checkout', { amountCents: 1000 })));
      assert.equal(statuses.filter((r) => r.status === 200).length, 10, statuses.map((r) => r.status).join(','));
      const refused = statuses.filter((r) => r.status === 429);
      assert.equal(refused.length, 4);
      assert.equal(errorOf(refused[0]?.body).code, 'rate_limited');
      assert.ok(Number(refused[0]?.headers.get('retry-after')) > 0);
      assert.equal(stripe.creates.length - creates, 10, 'refused ones never reached Stripe');
      // Another user is not affected.
      const other = await ctx.gw.createUser(0);
      await startTopup(ctx.gw, other.key, 1000);
    });

    test('a checkout retried under its Idempotency-Key answers even when the user is at the limit', async () => {
      const { key } = await ctx.gw.createUser(0);
      const post = (idem: string) =>
        fetch(`${ctx.gw.url}/api/v1/billing/checkout`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': idem },
          body: JSON.stringify({ amountCents: 1500 }),
        });
      const first = (await (await post('keep-me')).json()) as { data: Checkout };
      for (let i = 0; i < 9; i++) assert.equal((await post(`other-${i}`)).status, 200);
      assert.equal((await post('one-more')).status, 429);
      const retry = await post('keep-me');
      assert.equal(retry.status, 200);
      assert.equal(((await retry.json()) as { data: Checkout }).data.id, first.data.id);
    });

    test('the ledger lists newest first with links, filters by kind and pages; a 402 says where to add funds', async () => {
      const { userId, key } = await ctx.gw.createUser(0);
      const refused = await ctx.gw.api(key, 'POST', '/api/v1/generation/create', { model: 'z-image-turbo', input: { prompt: 'x' } });
      assert.equal(refused.status, 402);
      assert.equal(errorOf(refused.body).code, 'insufficient_balance');
      assert.equal(errorOf(refused.body).message, `insufficient balance for this request: add funds at ${ctx.gw.url}/billing`);
      const chat = await ctx.gw.api(key, 'POST', '/api/v1/chat/completions', { model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(chat.status, 402);
      assert.match((chat.body as { error: { message: string } }).error.message, new RegExp(`Add funds at ${ctx.gw.url}/billing\\.$`));

      await ctx.gw.admin('POST', `/admin/v1/users/${userId}/credits`, { amountCents: 100 }, { 'idempotency-key': 'c1' });
      const created = await ctx.gw.api(key, 'POST', '/api/v1/generation/create', { model: 'z-image-turbo', input: { prompt: 'x' } });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      const taskId = data<{ taskId: string }>(created.body).taskId;
      const page1 = await ctx.gw.api(key, 'GET', '/api/v1/billing/ledger?limit=1');
      const first = data<{ items: Entry[]; nextCursor: string }>(page1.body);
      assert.equal(first.items[0]?.kind, 'generation_debit');
      assert.deepEqual(first.items[0]?.link, { type: 'generation', id: taskId, agentConversationId: null });
      const page2 = await ctx.gw.api(key, 'GET', `/api/v1/billing/ledger?limit=1&cursor=${first.nextCursor}`);
      const second = data<{ items: Entry[] }>(page2.body);
      assert.equal(second.items[0]?.kind, 'credit');
      assert.equal(second.items[0]?.balanceAfterMicroUsd, '1000000');
      assert.deepEqual(second.items[0]?.link, { type: 'credit', id: null });
      const credits = await ctx.gw.api(key, 'GET', '/api/v1/billing/ledger?kind=credit,topup_credit');
      assert.deepEqual(data<{ items: Entry[] }>(credits.body).items.map((e) => e.kind), ['credit']);
      for (const q of ['kind=nope', 'limit=0', 'limit=500', 'cursor=x', 'other=1']) {
        const bad = await ctx.gw.api(key, 'GET', `/api/v1/billing/ledger?${q}`);
        assert.equal(bad.status, 400, q);
      }
      const summary = data<{ balanceMicroUsd: string; heldMicroUsd: string; availableMicroUsd: string; holds: unknown[] }>((await ctx.gw.api(key, 'GET', '/api/v1/billing')).body);
      assert.equal(summary.heldMicroUsd, '0');
      assert.equal(summary.availableMicroUsd, summary.balanceMicroUsd);
      assert.deepEqual(summary.holds, []);
    });

    test('the books verify', async () => {
      assert.deepEqual(await verifyLedger(ctx.gw.gateway.services.database.db), []);
    });
  },
  {
    env: { STRIPE_API_BASE: stripe.url, STRIPE_SECRET_KEY: stripe.secretKey, STRIPE_WEBHOOK_SECRET: stripe.webhookSecret },
  },
);

test('without Stripe settings top-ups are disabled with a clear answer; redeem codes still work', async () => {
  const gw = await startTestGateway('embedded');
  try {
    const { key } = await gw.createUser(0);
    const summary = await gw.api(key, 'GET', '/api/v1/billing');
    assert.equal(data<{ topups: { enabled: boolean } }>(summary.body).topups.enabled, false);
    const res = await gw.api(key, 'POST', '/api/v1/billing/checkout', { amountCents: 1000 });
    assert.equal(res.status, 403);
    assert.equal(errorOf(res.body).code, 'topups_disabled');
    const hook = await fetch(`${gw.url}/api/v1/billing/webhooks/stripe`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.equal(hook.status, 403);
    const code = await gw.admin<{ code: string }>('POST', '/admin/v1/redeem-codes', { amountCents: 250 });
    assert.equal((await gw.api(key, 'POST', '/api/v1/billing/redeem', { code: code.code })).status, 200);
    assert.equal(await balanceMicro(gw, key), 2_500_000);
  } finally {
    await gw.close();
  }
});
