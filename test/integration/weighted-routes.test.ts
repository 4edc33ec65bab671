/**
 * Routes with priority and weight (issue 32, item 2): two chat upstreams share priority 0 with
 * weights 3:1 and both get traffic; when both fail, the priority-1 upstream answers, and health-aware
 * selection (item 3) skips them while they cool and returns to them once they recover.
 */
import assert from 'node:assert/strict';
import { after, beforeEach, test } from 'node:test';
import { startChatFakes } from '../support/chat-gateway.ts';
import { describeEachMode } from '../support/gateway.ts';

const fakes = await startChatFakes();
after(() => fakes.close());
const chatConfig = fakes.config as { providers: Record<string, unknown>; routes: Record<string, unknown> };
const config = {
  ...chatConfig,
  routes: {
    ...chatConfig.routes,
    // Three routes on one fake, told apart by the upstream model name.
    'gpt-5.4': [
      { provider: 'oa-primary', model: 'gpt-heavy', priority: 0, weight: 3 },
      { provider: 'oa-backup', model: 'gpt-light', priority: 0, weight: 1 },
      { provider: 'oa', model: 'gpt-reserve', priority: 1 },
    ],
  },
};

const upstreamModels = (): string[] => fakes.openai.requests.map((r) => (r.body as { model: string }).model);

describeEachMode(
  'routes with priority and weight',
  (ctx) => {
    beforeEach(() => {
      fakes.reset();
      fakes.openai.respondWith(undefined);
    });

    test('two upstreams of one priority share the traffic; the next priority gets none while they answer', async () => {
      const { key } = await ctx.gw.createUser(100);
      const requests = 48;
      for (let i = 0; i < requests; i++) {
        const answer = await ctx.gw.api(key, 'POST', '/api/v1/chat/completions', { model: 'gpt-5.4', messages: [{ role: 'user', content: `hi ${i}` }], max_tokens: 20 });
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
      }
      const models = upstreamModels();
      assert.equal(models.length, requests, 'one upstream call per request');
      const heavy = models.filter((m) => m === 'gpt-heavy').length;
      const light = models.filter((m) => m === 'gpt-light').length;
      assert.equal(heavy + light, requests, 'the reserve is not used while priority 0 answers');
      // Both are chosen (the chance that one of them gets nothing in 48 draws at 3:1 is below 1e-6).
      assert.ok(heavy > 0 && light > 0, `heavy ${heavy}, light ${light}`);
    });

    test('when both upstreams of priority 0 fail, the priority-1 upstream answers; they cool, are skipped, and get traffic again once they recover', async () => {
      const { key } = await ctx.gw.createUser(100);
      let failing = true;
      fakes.openai.respondWith((body) => (!failing || (body as { model: string }).model === 'gpt-reserve' ? undefined : { error: { status: 503, message: 'Overloaded.' } }));
      const ask = async (): Promise<string[]> => {
        const before = fakes.openai.requests.length;
        const answer = await ctx.gw.api(key, 'POST', '/api/v1/chat/completions', { model: 'gpt-5.4', messages: [{ role: 'user', content: 'hi' }], max_tokens: 20 });
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        return upstreamModels().slice(before);
      };
      const first = await ask();
      assert.equal(first.at(-1), 'gpt-reserve', first.join(', '));
      assert.deepEqual([...new Set(first.slice(0, -1))].sort(), ['gpt-heavy', 'gpt-light'], 'both of priority 0 were tried first');
      // Both cool after their failure: the next requests go straight to the reserve, with no error.
      for (let i = 0; i < 3; i++) assert.deepEqual(await ask(), ['gpt-reserve'], 'a cooling upstream is skipped while a healthy one is left');
      // They recover; once the cooling (5 s after one failure) ends, the half-open trial succeeds and priority 0 serves again.
      failing = false;
      await new Promise((resolve) => setTimeout(resolve, 5_200));
      const after = await ask();
      assert.equal(after.length, 1);
      assert.ok(['gpt-heavy', 'gpt-light'].includes(after[0] as string), after.join(', '));
      const served = new Set<string>();
      for (let i = 0; i < 12; i++) for (const m of await ask()) served.add(m);
      assert.ok(!served.has('gpt-reserve'), `the reserve gets nothing once priority 0 is healthy again: ${[...served].join(', ')}`);
    });
  },
  { configFile: config },
);
