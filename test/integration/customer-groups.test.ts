/**
 * Customer groups and price multipliers (issue 33, item 4) on a whole gateway: a vip account's
 * estimate and debit are the group price (an image model, a video model billed per measured second),
 * its chat charge is the usage price times the multiplier, a per-model multiplier beats the group's,
 * a default account's prices are unchanged, /models, /cost and the catalog read with the key show the
 * group price, a change is priced at once and a held request keeps the price it was held at, and bad
 * input is a 400 that changes nothing. The books verify.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { verifyLedger } from '../../src/adapters/db/ledger/ledger-checks.ts';
import type { ChatRequest } from '../../src/domain/chat/chat-request.types.ts';
import { groupPriceMicro } from '../../src/domain/pricing/customer-groups.ts';
import { assertSettled, expectedCost, heldMicro, openAiClient, prices, startChatFakes } from '../support/chat-gateway.ts';
import { ADMIN_TOKEN, describeEachMode, type TestGateway } from '../support/gateway.ts';
import { type MediaServer, startMediaServer } from '../support/media-server.ts';
import { waitForTask } from '../support/tasks.ts';

const fakes = await startChatFakes();
let media: MediaServer;
before(async () => {
  media = await startMediaServer();
});
after(async () => {
  await fakes.close();
  await media.close();
});

const VIP_PPM = 1_234_567;

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`${what} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function adminCall(gw: TestGateway, method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const response = await fetch(gw.url + path, { method, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as unknown) : undefined };
}

async function estimate(gw: TestGateway, key: string, body: unknown): Promise<number> {
  const res = await gw.api(key, 'POST', '/api/v1/generation/estimate', body);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return (res.body as { cost: number }).cost;
}

/** Creates the task and returns its debit from the ledger (a positive number). */
async function debit(gw: TestGateway, key: string, body: unknown): Promise<number> {
  const created = await gw.api(key, 'POST', '/api/v1/generation/create', body);
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const taskId = (created.body as { data: { taskId: string } }).data.taskId;
  const rows = await gw.gateway.services.database.db.selectFrom('ledger_entries').select(['kind', 'amount_micro']).where('reference', '=', taskId).execute();
  assert.deepEqual(rows.map((r) => r.kind), ['generation_debit']);
  assert.equal((await waitForTask(gw, key, taskId)).status, 'finished');
  return -Number(rows[0]?.amount_micro);
}

describeEachMode(
  'customer groups and price multipliers',
  (ctx) => {
    let vip: { userId: string; key: string };
    let plain: { userId: string; key: string };
    const image = { model: 'z-image-turbo', input: { prompt: 'a lighthouse' } };
    const overridden = { model: 'grok-imagine-image', input: { prompt: 'a lighthouse' } };
    const video = () => ({ model: 'kling-2.6-motion-control', input: { imageUrls: [media.imageUrl], videoUrls: [media.videoUrl(7)], characterOrientation: 'video' } });

    before(async () => {
      vip = await ctx.gw.createUser(1000);
      plain = await ctx.gw.createUser(1000);
      const group = await ctx.gw.admin<{ name: string; multiplier: string; models: Record<string, string> }>('POST', '/admin/v1/groups', { name: 'vip', multiplier: 1.234567, models: { 'grok-imagine-image': '2' } });
      assert.deepEqual([group.name, group.multiplier, group.models], ['vip', '1.234567', { 'grok-imagine-image': '2' }]);
      const assigned = await ctx.gw.admin<{ group: string; multiplier: string }>('PUT', `/admin/v1/users/${vip.userId}/group`, { group: 'vip' });
      assert.deepEqual(assigned, { accountId: vip.userId, group: 'vip', multiplier: '1.234567' });
    });
    beforeEach(() => fakes.reset());

    test('a vip account: estimate = debit = the group price, for an image model and a video model billed per measured second; a default account is unchanged', async () => {
      const listImage = await estimate(ctx.gw, plain.key, image);
      assert.equal(listImage, 10_000);
      assert.equal(await debit(ctx.gw, plain.key, image), listImage, 'default: unchanged');
      const vipImage = await estimate(ctx.gw, vip.key, image);
      assert.equal(vipImage, groupPriceMicro(listImage, VIP_PPM));
      assert.equal(vipImage, 12_346, '12,345.67 rounds up');
      assert.equal(await debit(ctx.gw, vip.key, image), vipImage);

      const listVideo = await estimate(ctx.gw, plain.key, video());
      assert.equal(listVideo, 70_000 * 7);
      assert.equal(await debit(ctx.gw, plain.key, video()), listVideo);
      const vipVideo = await estimate(ctx.gw, vip.key, video());
      assert.equal(vipVideo, 604_938);
      assert.equal(await debit(ctx.gw, vip.key, video()), vipVideo);
      assert.deepEqual(await verifyLedger(ctx.gw.gateway.services.database.db), []);
    });

    test('a per-model multiplier beats the group one', async () => {
      const list = await estimate(ctx.gw, plain.key, overridden);
      const vipPrice = await estimate(ctx.gw, vip.key, overridden);
      assert.equal(vipPrice, list * 2);
      assert.equal(await debit(ctx.gw, vip.key, overridden), vipPrice);
    });

    test('chat: the charge is the usage price times the multiplier; /models, /cost and the catalog read with the key show the group price', async () => {
      const usage = { input: 1000, output: 500 };
      const list = await prices(ctx.gw, plain.key, 'gpt-5.4-mini');
      const group = await prices(ctx.gw, vip.key, 'gpt-5.4-mini');
      assert.equal(group.input, BigInt(groupPriceMicro(Number(list.input), VIP_PPM)));
      assert.equal(group.output, BigInt(groupPriceMicro(Number(list.output), VIP_PPM)));

      fakes.openai.enqueue({ text: 'hello', usage });
      const answer = await openAiClient(ctx.gw, vip.key).chat.completions.create({ model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 600 });
      await assertSettled(ctx.gw, vip.userId, answer.id, groupPriceMicro(expectedCost(list, usage), VIP_PPM));
      fakes.openai.enqueue({ text: 'hello', usage });
      const plainAnswer = await openAiClient(ctx.gw, plain.key).chat.completions.create({ model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 600 });
      await assertSettled(ctx.gw, plain.userId, plainAnswer.id, expectedCost(list, usage));

      type Cost = { tiers: Array<{ price: string; priceMicroUsd: string }>; tokens?: { input: string } };
      const anonymous = (await ctx.gw.api(undefined, 'GET', '/api/v1/cost/z-image-turbo')).body as Cost;
      const withKey = (await ctx.gw.api(vip.key, 'GET', '/api/v1/cost/z-image-turbo')).body as Cost;
      assert.equal(anonymous.tiers[0]?.priceMicroUsd, '10000');
      assert.equal(withKey.tiers[0]?.priceMicroUsd, '12346');
      assert.equal(withKey.tiers[0]?.price, '0.012346');
      const allWithKey = (await ctx.gw.api(vip.key, 'GET', '/api/v1/cost')).body as { models: Array<Cost & { model: string }> };
      assert.equal(allWithKey.models.find((m) => m.model === 'gpt-5.4-mini')?.tokens?.input, (Number(group.input) / 1e6).toString());
      const grokList = ((await ctx.gw.api(undefined, 'GET', '/api/v1/cost/grok-imagine-image')).body as Cost).tiers[0]?.priceMicroUsd;
      assert.equal(allWithKey.models.find((m) => m.model === 'grok-imagine-image')?.tiers[0]?.priceMicroUsd, String(Number(grokList) * 2), 'the per-model multiplier');

      type Listed = { id: string; priceFrom: string };
      const catalogVip = ((await ctx.gw.api(vip.key, 'GET', '/api/v1/catalog')).body as Listed[]).find((m) => m.id === 'z-image-turbo');
      const catalogAnon = ((await ctx.gw.api(undefined, 'GET', '/api/v1/catalog')).body as Listed[]).find((m) => m.id === 'z-image-turbo');
      assert.equal(catalogVip?.priceFrom, '0.012346');
      assert.equal(catalogAnon?.priceFrom, '0.01');
      assert.equal(((await ctx.gw.api(vip.key, 'GET', '/api/v1/catalog/z-image-turbo')).body as Listed).priceFrom, '0.012346');
      // A key that is not valid is ignored by the public reads: the list price, not a 401.
      const revoked = await ctx.gw.api('sk-not-a-key', 'GET', '/api/v1/catalog/z-image-turbo');
      assert.equal(revoked.status, 200);
      assert.equal((revoked.body as Listed).priceFrom, '0.01');
    });

    test('a change is priced at once without a restart; a chat request held before it settles at the multiplier it was held at', async () => {
      const usage = { input: 1000, output: 500 };
      const list = await prices(ctx.gw, plain.key, 'gpt-5.4-mini');
      fakes.openai.enqueue({ text: 'slow', usage, delayMs: 400 });
      const first = openAiClient(ctx.gw, vip.key).chat.completions.create({ model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 600 });
      await until('the hold was taken', async () => (await heldMicro(ctx.gw, vip.userId)) > 0);

      const patched = await ctx.gw.admin<{ multiplier: string; version: number }>('PATCH', '/admin/v1/groups/vip', { multiplier: '1.5', models: { 'grok-imagine-image': 2 } });
      assert.equal(patched.multiplier, '1.5');
      assert.equal(await estimate(ctx.gw, vip.key, image), 15_000, 'the next estimate is at the new multiplier');
      assert.equal(await debit(ctx.gw, vip.key, image), 15_000);

      await assertSettled(ctx.gw, vip.userId, (await first).id, groupPriceMicro(expectedCost(list, usage), VIP_PPM));
      fakes.openai.enqueue({ text: 'after', usage });
      const second = await openAiClient(ctx.gw, vip.key).chat.completions.create({ model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 600 });
      await assertSettled(ctx.gw, vip.userId, second.id, groupPriceMicro(expectedCost(list, usage), 1_500_000));

      // Back in the default group: the list price again.
      await ctx.gw.admin('PUT', `/admin/v1/users/${vip.userId}/group`, { group: 'default' });
      assert.equal(await estimate(ctx.gw, vip.key, image), 10_000);
      await ctx.gw.admin('PUT', `/admin/v1/users/${vip.userId}/group`, { group: 'vip' });
      await ctx.gw.admin('PATCH', '/admin/v1/groups/vip', { multiplier: 1.234567 });
    });

    test('an agent run\'s model call: quoted at the group price, held and charged at the quoted multiplier even after a change', async () => {
      const usage = { input: 1000, output: 500 };
      const list = await prices(ctx.gw, plain.key, 'gpt-5.4-mini');
      const chat = ctx.gw.gateway.services.chat;
      const request: ChatRequest = { model: 'gpt-5.4-mini', system: [], messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }], tools: [], maxOutputTokens: 600, stop: [], stream: false };
      const listQuote = chat.quote({ protocol: 'openai', request, userId: plain.userId });
      const quote = chat.quote({ protocol: 'openai', request, userId: vip.userId });
      assert.equal(quote.priceMultiplierPpm, VIP_PPM);
      assert.equal(quote.holdMicro, groupPriceMicro(listQuote.holdMicro, VIP_PPM));
      await ctx.gw.admin('PATCH', '/admin/v1/groups/vip', { multiplier: 3 });
      fakes.openai.enqueue({ text: 'quoted', usage });
      const answer = await chat.complete({ userId: vip.userId, apiKeyId: undefined, protocol: 'openai', request, abort: new AbortController(), onAbort: 'cancel', model: quote.model, maxChargeMicro: quote.holdMicro, priceMultiplierPpm: quote.priceMultiplierPpm });
      assert.equal(answer.kind, 'response');
      await answer.ended;
      const row = await assertSettled(ctx.gw, vip.userId, answer.id, groupPriceMicro(expectedCost(list, usage), VIP_PPM));
      assert.equal(row.hold_micro, quote.holdMicro, 'held what the quote said');
      await ctx.gw.admin('PATCH', '/admin/v1/groups/vip', { multiplier: 1.234567 });
    });

    test('bad input is a 400 in the error format and changes nothing', async () => {
      const before = await ctx.gw.admin<{ groups: unknown[] }>('GET', '/admin/v1/groups');
      const refusals: Array<[string, string, unknown, string | undefined]> = [
        ['POST', '/admin/v1/groups', { name: 'zero', multiplier: 0 }, 'multiplier'],
        ['POST', '/admin/v1/groups', { name: 'neg', multiplier: -1.5 }, 'multiplier'],
        ['POST', '/admin/v1/groups', { name: 'absurd', multiplier: 1000 }, 'multiplier'],
        ['POST', '/admin/v1/groups', { name: 'text', multiplier: 'cheap' }, 'multiplier'],
        ['POST', '/admin/v1/groups', { name: 'default', multiplier: 1.1 }, 'name'],
        ['POST', '/admin/v1/groups', { name: 'Bad Name', multiplier: 1.1 }, 'name'],
        ['POST', '/admin/v1/groups', { name: 'unknown-model', multiplier: 1.1, models: { 'no-such-model': 1.2 } }, 'models.no-such-model'],
        ['POST', '/admin/v1/groups', { name: 'bad-model-mult', multiplier: 1.1, models: { 'z-image-turbo': 0 } }, 'models.z-image-turbo'],
        ['PATCH', '/admin/v1/groups/vip', { multiplier: 0 }, 'multiplier'],
        ['PATCH', '/admin/v1/groups/vip', { models: { 'no-such-model': 2 } }, 'models.no-such-model'],
        ['PATCH', '/admin/v1/groups/vip', { surprise: true }, 'surprise'],
        ['PUT', `/admin/v1/users/${plain.userId}/group`, { group: 'no-such-group' }, 'group'],
      ];
      for (const [method, path, body, param] of refusals) {
        const res = await adminCall(ctx.gw, method, path, body);
        assert.equal(res.status, 400, `${method} ${path} ${JSON.stringify(body)} → ${JSON.stringify(res.body)}`);
        const error = (res.body as { code: number; error: { code: string; type: string; message: string; param?: string } });
        assert.equal(error.code, 400);
        assert.equal(error.error.code, 'invalid_input');
        assert.equal(typeof error.error.message, 'string');
        if (param !== undefined && error.error.param !== undefined) assert.equal(error.error.param, param);
      }
      assert.equal((await adminCall(ctx.gw, 'PUT', '/admin/v1/users/usr_nobody/group', { group: 'vip' })).status, 404);
      assert.equal((await adminCall(ctx.gw, 'POST', '/admin/v1/groups', { name: 'vip', multiplier: 2 })).status, 409, 'exists already');
      assert.equal((await adminCall(ctx.gw, 'DELETE', '/admin/v1/groups/vip')).status, 409, 'it has an account');
      assert.equal((await adminCall(ctx.gw, 'PATCH', '/admin/v1/groups/vip', { multiplier: 2, expectedVersion: 999 })).status, 409, 'stale version');
      assert.equal((await fetch(`${ctx.gw.url}/admin/v1/groups`)).status, 401, 'no admin token');
      assert.deepEqual(await ctx.gw.admin<{ groups: unknown[] }>('GET', '/admin/v1/groups'), before, 'nothing changed');
      assert.equal(await estimate(ctx.gw, vip.key, image), 12_346);
      assert.equal(await estimate(ctx.gw, plain.key, image), 10_000);
      assert.deepEqual(await ctx.gw.admin('GET', `/admin/v1/users/${plain.userId}/group`), { accountId: plain.userId, group: 'default', multiplier: '1' });
      // Audited with the other price settings.
      const entries = (await ctx.gw.admin<{ data: Array<{ subjectKind: string }> }>('GET', '/admin/v1/audit')).data;
      assert.ok(entries.some((e) => e.subjectKind === 'customer_group'));
      assert.ok(entries.some((e) => e.subjectKind === 'customer_group_member'));
    });

    test('a group with no accounts can be deleted; the books verify', async () => {
      await ctx.gw.admin('POST', '/admin/v1/groups', { name: 'partner', multiplier: '0.8' });
      assert.deepEqual(await ctx.gw.admin('DELETE', '/admin/v1/groups/partner'), { deleted: true });
      assert.equal((await adminCall(ctx.gw, 'GET', '/admin/v1/groups/partner')).status, 404);
      assert.deepEqual(await verifyLedger(ctx.gw.gateway.services.database.db), []);
    });
  },
  { configFile: fakes.config, env: { SWITCHBOARD_LOCAL_LATENCY_MS: '50' } },
);
