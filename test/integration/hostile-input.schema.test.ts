/**
 * Issue 17, items 7 and 10 (the hostile-input bound): a gateway in its own process while /healthz is
 * timed from another connection, and an attacker's `outputSchema`s:
 * - the `$ref` fan-out (40 levels, 2.7 KB: 2^40 schemas to try when the run ends);
 * - `(a+)+c` against an answer of 40 a's (V8's backtracking: hours);
 * - `^(a|a)*c$`, which the pattern rule accepts, against an answer of 20,000 a's (exponential on a
 *   backtracking engine, linear on RE2);
 * - `format: email` against a 40 KB answer (the format's own expression is quadratic);
 * - a fan-out within the bounds (13 levels, 32,767 nodes) that every item of a 200-item extraction
 *   result tries in full before the branch that fits (the step budget stops it; before, 5 million
 *   steps).
 * The slowest health check stays within 100 ms of the median and RSS growth stays bounded. Before
 * the fix the first two are accepted and their runs freeze the gateway when they end.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { ScriptedOrchestrator } from '../fakes/scripted-orchestrator.ts';
import { ADMIN_TOKEN } from '../support/gateway.ts';
import { type HealthzProbe, probeHealthz, rssOf } from '../support/healthz-probe.ts';
import { call, createSharedStores, spawnGateway } from '../support/processes.ts';
import { closedObject as obj, fanOutSchema } from '../support/hostile-schemas.ts';

type Json = Record<string, unknown>;

const MAX_ADDED_LATENCY_MS = 100;
const MAX_RSS_GROWTH_BYTES = 256 * 1024 * 1024;

interface Payload {
  name: string;
  schema: Json;
  mode?: 'auto' | 'extract';
  /** The run's answers: its final text, then extraction results. */
  turns: string[];
  /** 400 (refused at submit, naming this pointer) or the run's end (`budget`: the check ran out of steps). */
  expect: { refusedAt: RegExp; budget?: undefined } | { ends: true; budget?: boolean };
}

/** Every item fails every path of the fan-out (2^13 leaves) before it fits the second branch. */
const costlyList = JSON.stringify({ list: Array.from({ length: 200 }, () => 1) });
const withinBounds = fanOutSchema(13);

const PAYLOADS: Payload[] = [
  { name: '$ref fan-out, 40 levels', schema: fanOutSchema(40), turns: ['Done.'], expect: { refusedAt: /^outputSchema\/\$defs\/d\d+$/ } },
  { name: '(a+)+c against 40 a\'s', schema: obj({ summary: { type: 'string', pattern: '(a+)+c' } }), turns: ['a'.repeat(40)], expect: { refusedAt: /^outputSchema\/properties\/summary\/pattern$/ } },
  { name: '^(a|a)*c$ against 20,000 a\'s', schema: obj({ summary: { type: 'string', pattern: '^(a|a)*c$' } }), turns: ['a'.repeat(20_000), 'no', 'no'], expect: { ends: true } },
  { name: 'format email against 40 KB', schema: obj({ summary: { type: 'string', format: 'email' } }), turns: [`a@${'a.'.repeat(20_000)} `, 'no', 'no'], expect: { ends: true } },
  {
    name: '200 items against a fan-out within the bounds',
    schema: obj({ list: { type: 'array', items: { anyOf: [{ $ref: '#/$defs/d0' }, { type: 'number' }] } } }, { $defs: withinBounds.$defs as Json }),
    mode: 'extract',
    turns: ['Done.', costlyList, costlyList],
    expect: { ends: true, budget: true },
  },
];

/**
 * Three rounds at most: this 2-core machine is shared (CI runs three test files at once), and a process
 * that is simply not scheduled for a while shows up as one slow health check. A gateway that holds its
 * event loop on a payload is slow in every round (before the fix it does not answer for minutes).
 */
const ROUNDS = 3;

test('hostile outputSchemas and patterns never hold the event loop: /healthz within 100 ms of its median, RSS bounded', { timeout: 240_000 }, async () => {
  const orchestrator = await ScriptedOrchestrator.start('openai');
  after(() => orchestrator.close());
  const stores = await createSharedStores('embedded', { providers: { orch: orchestrator.provider() }, routes: { 'gpt-5.4-mini': ['orch'] } });
  const gateway = await spawnGateway(stores);
  const pid = gateway.child.pid as number;
  let probe: HealthzProbe | undefined;
  try {
    const user = (await call(gateway.url, ADMIN_TOKEN, 'POST', '/admin/v1/users', { balanceCents: 100_000 })).body as { id: string };
    const key = ((await call(gateway.url, ADMIN_TOKEN, 'POST', `/admin/v1/users/${user.id}/api-keys`, {})).body as { key: string }).key;
    // A frozen gateway answers nothing: every call has a deadline, so the test fails instead of waiting for hours.
    const api = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(gateway.url + path, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(15_000),
      });
      return { status: res.status, body: (await res.json()) as { data: Json; error?: { code: string; param?: string; message: string } } };
    };
    const rounds: string[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      probe = probeHealthz(gateway.url);
      await new Promise((resolve) => setTimeout(resolve, 500));
      const rssBefore = rssOf(pid);
      const runs: Array<{ payload: Payload; runId: string }> = [];
      for (const payload of PAYLOADS) {
        const conversation = await api('POST', '/api/v1/agent/conversations', { title: payload.name });
        const conversationId = conversation.body.data.conversationId as string;
        orchestrator.plan(conversationId, ...payload.turns.map((text) => ({ text })));
        const res = await api('POST', `/api/v1/agent/conversations/${conversationId}/messages`, {
          content: [{ type: 'text', text: 'go' }],
          outputSchema: payload.schema,
          ...(payload.mode ? { structuredOutputMode: payload.mode } : {}),
        });
        if ('refusedAt' in payload.expect) {
          assert.equal(res.status, 400, `${payload.name}: ${JSON.stringify(res.body).slice(0, 300)}`);
          assert.equal(res.body.error?.code, 'invalid_output_schema');
          assert.match(String(res.body.error?.param), payload.expect.refusedAt, payload.name);
        } else {
          assert.equal(res.status, 200, `${payload.name}: ${JSON.stringify(res.body).slice(0, 300)}`);
          runs.push({ payload, runId: res.body.data.runId as string });
        }
      }
      for (const { payload, runId } of runs) {
        const deadline = Date.now() + 60_000;
        let status = '';
        while (Date.now() < deadline) {
          status = (await api('GET', `/api/v1/agent/runs/${runId}`)).body.data.status as string;
          if (['completed', 'failed', 'cancelled'].includes(status)) break;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        assert.equal(status, 'completed', payload.name);
        const result = (await api('GET', `/api/v1/agent/runs/${runId}/result`)).body.data as { structuredResult: unknown; extraction: { status: string; error: string | null } };
        assert.equal(result.structuredResult, null, payload.name);
        assert.equal(result.extraction.status, 'failed', payload.name);
        if (payload.expect.budget) assert.match(String(result.extraction.error), /checking the value stopped after \d+ steps/, payload.name);
      }
      const rssGrowth = rssOf(pid) - rssBefore;
      const { maxMs, medianMs, samples } = await probe.stop();
      probe = undefined;
      const figures = `round ${round}: /healthz median ${medianMs.toFixed(1)} ms, max ${maxMs.toFixed(1)} ms over ${samples} checks; RSS +${Math.round(rssGrowth / 1024 / 1024)} MB`;
      console.log(`hostile schemas, ${figures}`);
      rounds.push(figures);
      assert.ok(samples > 20, `${samples} health checks`);
      assert.ok(rssGrowth < MAX_RSS_GROWTH_BYTES, `RSS grew by ${Math.round(rssGrowth / 1024 / 1024)} MB`);
      if (maxMs - medianMs < MAX_ADDED_LATENCY_MS) return;
    }
    assert.fail(`the slowest /healthz passed its median by ${MAX_ADDED_LATENCY_MS} ms or more in every round: ${rounds.join('; ')}`);
  } finally {
    // Killed first: a frozen gateway would keep the probe's request (and probe.stop) waiting.
    await gateway.kill();
    await probe?.stop();
    await stores.dispose();
  }
});
