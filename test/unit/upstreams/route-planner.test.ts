/**
 * Health-aware selection (issue 32, item 3) over the in-memory board: cooling with backoff, the
 * half-open retry, auth and quota disabling a key until it is enabled, and the order a request tries.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MemoryHealthBoard } from '../../../src/adapters/health/memory-health-board.ts';
import { FIRST_COOLING_MS, MAX_COOLING_MS, coolingMs } from '../../../src/domain/upstreams/cooldown.ts';
import { classifyUpstreamFailure } from '../../../src/domain/upstreams/failure-kind.ts';
import { keySubject } from '../../../src/domain/upstreams/health-subjects.ts';
import type { UpstreamProvider } from '../../../src/domain/upstreams/live-upstreams.ts';
import { RoutePlanner } from '../../../src/services/upstreams/route-planner.ts';

function provider(name: string, keys: Array<{ id: string; weight?: number; enabled?: boolean }> = [{ id: 'file' }]): UpstreamProvider {
  return {
    name, type: 'openai', baseUrl: 'http://127.0.0.1:1', timeoutMs: 1000, concurrency: 4, options: {}, enabled: true, source: 'file', version: null,
    keys: keys.map((k) => ({ id: k.id, label: null, weight: k.weight ?? 1, enabled: k.enabled ?? true, hint: '', secret: `s-${k.id}` })),
  };
}

function planner(providers: UpstreamProvider[], board = new MemoryHealthBoard()): RoutePlanner {
  const byName = new Map(providers.map((p) => [p.name, p]));
  return new RoutePlanner({ provider: (n) => byName.get(n) }, board, () => 0.5);
}

const transient = { kind: 'transient', message: '503 Overloaded' } as const;

test('failures are classified by what they say about the upstream', () => {
  assert.equal(classifyUpstreamFailure({ status: 401, message: 'bad key' })?.kind, 'auth');
  assert.equal(classifyUpstreamFailure({ status: 403, message: 'forbidden' })?.kind, 'auth');
  assert.equal(classifyUpstreamFailure({ status: 402, message: 'pay' })?.kind, 'quota');
  assert.equal(classifyUpstreamFailure({ status: 429, message: 'You exceeded your current quota', code: 'insufficient_quota' })?.kind, 'quota');
  assert.deepEqual(classifyUpstreamFailure({ status: 429, message: 'slow down', retryAfterMs: 7000 }), { kind: 'rate_limited', message: 'slow down', retryAfterMs: 7000 });
  assert.equal(classifyUpstreamFailure({ status: 503, message: 'down' })?.kind, 'transient');
  assert.equal(classifyUpstreamFailure({ status: 504, message: 'time-out' })?.kind, 'transient');
  for (const status of [400, 404, 413, 422, 499]) assert.equal(classifyUpstreamFailure({ status, message: 'x' }), undefined, String(status));
});

test('cooling doubles with each failure in a row, up to five minutes; a rate limit cools for its Retry-After', () => {
  assert.equal(coolingMs(1, transient), FIRST_COOLING_MS);
  assert.equal(coolingMs(2, transient), 2 * FIRST_COOLING_MS);
  assert.equal(coolingMs(3, transient), 4 * FIRST_COOLING_MS);
  assert.equal(coolingMs(40, transient), MAX_COOLING_MS);
  assert.equal(coolingMs(1, { kind: 'rate_limited', message: '', retryAfterMs: 30_000 }), 30_000);
  assert.equal(coolingMs(1, { kind: 'rate_limited', message: '', retryAfterMs: 10 }), 1_000);
});

test('a cooling key goes last, is tried again half-open when the cooling ends, and cools longer after another failure', () => {
  const board = new MemoryHealthBoard();
  const p = planner([provider('a'), provider('b')], board);
  const routes = [{ provider: 'a', model: 'm' }, { provider: 'b', model: 'm' }];
  const t0 = 1_000_000;
  assert.deepEqual(p.plan(routes, t0).map((r) => r.provider), ['a', 'b']);
  p.report({ provider: 'a', model: 'm', keyId: 'file' }, transient, t0);
  assert.equal(board.state(keySubject('a', 'file'), t0), 'cooling');
  assert.deepEqual(p.plan(routes, t0 + 1).map((r) => r.provider), ['b', 'a'], 'cooling goes after every healthy entry, not out');
  assert.deepEqual(p.plan(routes, t0 + FIRST_COOLING_MS).map((r) => r.provider), ['a', 'b'], 'half-open once the cooling ends');
  p.report({ provider: 'a', model: 'm', keyId: 'file' }, transient, t0 + FIRST_COOLING_MS);
  assert.equal(board.state(keySubject('a', 'file'), t0 + 2 * FIRST_COOLING_MS), 'cooling', 'the second failure in a row cools for twice as long');
  p.report({ provider: 'a', model: 'm', keyId: 'file' }, undefined, t0 + 3 * FIRST_COOLING_MS);
  assert.equal(board.record(keySubject('a', 'file'))?.failures, 0, 'a success forgets the failures');
  assert.deepEqual(p.plan(routes, t0 + 3 * FIRST_COOLING_MS).map((r) => r.provider), ['a', 'b']);
});

test('an auth or quota failure disables the key until it is enabled; a success does not lift it', async () => {
  const board = new MemoryHealthBoard();
  const p = planner([provider('a', [{ id: 'k1' }, { id: 'k2' }])], board);
  const routes = [{ provider: 'a', model: 'm' }];
  p.report({ provider: 'a', model: 'm', keyId: 'k1' }, { kind: 'auth', message: '401 invalid_api_key' });
  assert.deepEqual(p.plan(routes).map((r) => r.keyId), ['k2'], 'the disabled key is left out');
  assert.equal(p.pickKey('a')?.id, 'k2');
  p.report({ provider: 'a', model: 'm', keyId: 'k1' }, undefined);
  assert.equal(board.state(keySubject('a', 'k1')), 'disabled');
  p.report({ provider: 'a', model: 'm', keyId: 'k2' }, { kind: 'quota', message: '402' });
  assert.deepEqual(p.plan(routes), [], 'nothing usable is left');
  assert.deepEqual(p.chooseKey('a'), { refused: 'every key of provider a is switched off or disabled' });
  await board.enable(keySubject('a', 'k1'));
  assert.deepEqual(p.plan(routes).map((r) => r.keyId), ['k1']);
});

test('keys of one provider share its traffic by weight; a key switched off gets none', () => {
  let draw = 0;
  const draws = [0.9, 0.1, 0.3, 0.7, 0.5, 0.2, 0.8, 0.4];
  const byName = new Map([['a', provider('a', [{ id: 'k1', weight: 3 }, { id: 'k2', weight: 1 }, { id: 'off', weight: 100, enabled: false }])]]);
  const p = new RoutePlanner({ provider: (n) => byName.get(n) }, new MemoryHealthBoard(), () => draws[draw++ % draws.length] as number);
  const first = new Map<string, number>();
  for (let i = 0; i < 400; i++) {
    const plan = p.plan([{ provider: 'a', model: 'm' }]);
    assert.ok(!plan.some((r) => r.keyId === 'off'));
    assert.equal(plan.length, 2, 'every usable key is a fallback of the others');
    const id = (plan[0] as { keyId: string }).keyId;
    first.set(id, (first.get(id) ?? 0) + 1);
  }
  assert.ok((first.get('k1') ?? 0) > (first.get('k2') ?? 0), JSON.stringify([...first]));
});
