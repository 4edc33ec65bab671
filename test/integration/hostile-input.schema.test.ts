/**
 * Hostile `outputSchema`s and patterns (issue 17, items 7 and 10; the payloads are in
 * test/support/hostile/schema-payloads.ts): a gateway in its own process receives each. The
 * unbounded ones are refused at submit, naming the place; the others end their runs with the
 * structured result refused, within their deadlines (a frozen gateway answers nothing, so the test
 * fails instead of waiting for hours), and RSS stays bounded. How long each keeps other requests
 * waiting is printed here and measured by bench/hostile-input.ts against an idle baseline.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { ScriptedOrchestrator } from '../fakes/scripted-orchestrator.ts';
import { ADMIN_TOKEN } from '../support/gateway.ts';
import { rssOf } from '../support/healthz-probe.ts';
import { describeFigure, measureLoop } from '../support/hostile/measure.ts';
import { schemaPayloads } from '../support/hostile/schema-payloads.ts';
import { call, createSharedStores, spawnGateway } from '../support/processes.ts';

const MAX_RSS_GROWTH_BYTES = 256 * 1024 * 1024;

test('hostile outputSchemas and patterns are refused or bounded, and the gateway keeps answering', { timeout: 240_000 }, async (t) => {
  const orchestrator = await ScriptedOrchestrator.start('openai');
  after(() => orchestrator.close());
  const stores = await createSharedStores('embedded', { providers: { orch: orchestrator.provider() }, routes: { 'gpt-5.4-mini': ['orch'] } });
  const gateway = await spawnGateway(stores);
  const pid = gateway.child.pid as number;
  try {
    const user = (await call(gateway.url, ADMIN_TOKEN, 'POST', '/admin/v1/users', { balanceCents: 100_000 })).body as { id: string };
    const key = ((await call(gateway.url, ADMIN_TOKEN, 'POST', `/admin/v1/users/${user.id}/api-keys`, {})).body as { key: string }).key;
    const rssBefore = rssOf(pid);
    let peak = rssBefore;
    for (const payload of schemaPayloads(gateway.url, key, orchestrator)) {
      const figure = await measureLoop(gateway.url, pid, payload.name, payload.send);
      t.diagnostic(describeFigure(figure));
      peak = Math.max(peak, figure.peakRssBytes);
    }
    assert.ok(peak - rssBefore < MAX_RSS_GROWTH_BYTES, `RSS grew by ${Math.round((peak - rssBefore) / 1024 / 1024)} MB`);
    assert.equal((await fetch(`${gateway.url}/healthz`, { signal: AbortSignal.timeout(15_000) })).status, 200, 'the gateway is still up');
  } finally {
    // Killed, not stopped: a frozen gateway would not finish its shutdown.
    await gateway.kill();
    await stores.dispose();
  }
});
