/**
 * Customer groups across processes (issue 33, item 4): a group, an assignment and a multiplier
 * change made through one API process price the estimates of the other within 5 s (by the bus in
 * scale-out, by the poll of the store's revision in both modes).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ADMIN_TOKEN, type GatewayMode } from '../support/gateway.ts';
import { call, createSharedStores, type GatewayProcess, spawnGateways } from '../support/processes.ts';
import { serviceSkipReason, TEST_DATABASE_URL, TEST_REDIS_URL } from '../support/services.ts';

const image = { model: 'z-image-turbo', input: { prompt: 'a lighthouse' } };

async function within(what: string, ms: number, check: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > ms) assert.fail(`${what} not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return Date.now() - started;
}

for (const mode of ['embedded', 'scaleout'] as GatewayMode[]) {
  describe(`customer groups across processes [${mode}]`, async () => {
    const skip = mode === 'scaleout' ? ((await serviceSkipReason('PostgreSQL', TEST_DATABASE_URL)) ?? (await serviceSkipReason('Redis', TEST_REDIS_URL))) : undefined;

    test('a group and a multiplier change made through one API process price the other\'s estimates within 5 s', { skip }, async () => {
      const stores = await createSharedStores(mode, {});
      const fleet: GatewayProcess[] = [];
      try {
        const [api1, api2] = await spawnGateways(stores, ['api', 'api'], fleet);
        const user = (await call(api1.url, ADMIN_TOKEN, 'POST', '/admin/v1/users', { balanceCents: 100 })).body as { id: string };
        const key = ((await call(api1.url, ADMIN_TOKEN, 'POST', `/admin/v1/users/${user.id}/api-keys`, {})).body as { key: string }).key;
        const estimateAt = async (url: string) => ((await call(url, key, 'POST', '/api/v1/generation/estimate', image)).body as { cost: number }).cost;
        assert.equal(await estimateAt(api2.url), 10_000);

        assert.equal((await call(api1.url, ADMIN_TOKEN, 'POST', '/admin/v1/groups', { name: 'vip', multiplier: 1.25 })).status, 200);
        assert.equal((await call(api1.url, ADMIN_TOKEN, 'PUT', `/admin/v1/users/${user.id}/group`, { group: 'vip' })).status, 200);
        assert.equal(await estimateAt(api1.url), 12_500, 'the process that made the change prices by it at once');
        await within('the assignment reached the other process', 5_000, async () => (await estimateAt(api2.url)) === 12_500);

        assert.equal((await call(api1.url, ADMIN_TOKEN, 'PATCH', '/admin/v1/groups/vip', { multiplier: '2' })).status, 200);
        await within('the new multiplier reached the other process', 5_000, async () => (await estimateAt(api2.url)) === 20_000);
        const listed = (await call(api2.url, key, 'GET', '/api/v1/cost/z-image-turbo')).body as { tiers: Array<{ priceMicroUsd: string }> };
        assert.equal(listed.tiers[0]?.priceMicroUsd, '20000');
      } finally {
        await Promise.all(fleet.map((p) => p.stop()));
        await stores.dispose();
      }
    });
  });
}
