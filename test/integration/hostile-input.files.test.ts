/**
 * Hostile files and bodies (issue 17, items 8, 9, 11, 12 and the JSON attachment of 14; the payloads
 * are in test/support/hostile/file-payloads.ts): a gateway in its own process receives each payload.
 * Each is answered as it should be (refused, or read within its bounds), the process's memory stays
 * bounded, and the gateway still answers afterwards. How long each payload keeps other requests
 * waiting is printed here and measured by bench/hostile-input.ts against an idle baseline: timings on
 * a machine shared with the rest of the suite are not asserted in tests.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { clientFor } from '../support/agent.ts';
import { ADMIN_TOKEN, type TestGateway } from '../support/gateway.ts';
import { rssOf } from '../support/healthz-probe.ts';
import { filePayloads } from '../support/hostile/file-payloads.ts';
import { describeFigure, measureLoop } from '../support/hostile/measure.ts';
import { call, createSharedStores, type GatewayProcess, spawnGateway } from '../support/processes.ts';

/**
 * Resident memory the gateway may gain over its idle size while the payloads arrive one after the
 * other. The largest legitimate working sets: a 25 MiB attachment read whole and copied to its final
 * key, a 16 MB body and its parse in the pool's thread (a 256 MiB heap at most), two libvips decodes
 * of a 4096×4096 mask (16 MiB of pixels each) and libvips' cache; measured, the growth peaks at about
 * 320 MB (docs/benchmarks.md), and allocator slack takes the rest. Before the CPU pool, one 16k×16k
 * mask alone took it past 1.3 GB.
 */
const MAX_RSS_GROWTH_BYTES = 450 * 1024 * 1024;

describe('hostile files and bodies [embedded]', () => {
  test('every payload is answered as it should be, memory stays bounded and the gateway keeps answering', { timeout: 600_000 }, async (t) => {
    const stores = await createSharedStores('embedded', {});
    const gateway: GatewayProcess = await spawnGateway(stores);
    after(async () => {
      await gateway.stop();
      await stores.dispose();
    });
    const pid = gateway.child.pid as number;
    const user = (await call(gateway.url, ADMIN_TOKEN, 'POST', '/admin/v1/users', { balanceCents: 10_000 })).body as { id: string };
    const key = ((await call(gateway.url, ADMIN_TOKEN, 'POST', `/admin/v1/users/${user.id}/api-keys`, {})).body as { key: string }).key;
    const c = clientFor({ url: gateway.url } as TestGateway, key, user.id);
    for (let i = 0; i < 3; i++) await c.call('POST', '/api/v1/chat/completions', { model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'hi' }] });
    const payloads = await filePayloads(c, gateway.url);
    const idleRss = rssOf(pid);
    t.diagnostic(`idle RSS ${Math.round(idleRss / 1e6)} MB`);
    let peak = idleRss;
    for (const payload of payloads) {
      const figure = await measureLoop(gateway.url, pid, payload.name, payload.send);
      t.diagnostic(describeFigure(figure));
      peak = Math.max(peak, figure.peakRssBytes);
    }
    assert.ok(peak - idleRss < MAX_RSS_GROWTH_BYTES, `RSS grew from ${Math.round(idleRss / 1e6)} MB to ${Math.round(peak / 1e6)} MB`);
    assert.equal((await fetch(`${gateway.url}/healthz`)).status, 200, 'the gateway is still up');
  });
});
