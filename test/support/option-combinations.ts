/**
 * Sending every option combination the catalog publishes through the gateway to strict fake upstreams
 * (issue 18, item 9): each combination must be accepted and finish, or be refused by us with a 400
 * that names the input field, before any charge. Shared by the per-vendor option-combination tests.
 */
import assert from 'node:assert/strict';
import { verifyLedger } from '../../src/adapters/db/ledger/ledger-checks.ts';
import type { CatalogEntry, CatalogParam } from './catalog-inputs.ts';
import type { TestGateway } from './gateway.ts';
import { waitForTask } from './tasks.ts';

export interface ComboModel {
  /** Fields every request of the model carries (the prompt). */
  base: Record<string, unknown>;
  /** Only these published options are combined (all enum and boolean options when absent). */
  only?: readonly string[];
  /** Extra dimensions: a field and the values to try (media fields, actions). */
  fixed?: Record<string, readonly unknown[]>;
}

export interface ComboTally {
  accepted: number;
  refused: number;
  /** The 400s by the field they named (`input.size` → count). */
  refusedBy: Record<string, number>;
}

/** Every combination of the enum and boolean options a model publishes (media and text excluded), plus `fixed`. */
export function combinations(model: CatalogEntry, spec: ComboModel): Array<Record<string, unknown>> {
  const fixed = spec.fixed ?? {};
  const dims: Array<[string, readonly unknown[]]> = Object.entries(fixed);
  for (const p of model.params as CatalogParam[]) {
    if (p.deprecated || p.isMedia || p.isPrompt || p.name in fixed) continue;
    if (spec.only && !spec.only.includes(p.name)) continue;
    if (p.kind === 'boolean') dims.push([p.name, [false, true]]);
    else if (p.options && p.options.length > 0) dims.push([p.name, p.options.map((o) => o.value)]);
  }
  let out: Array<Record<string, unknown>> = [{}];
  for (const [name, values] of dims) out = out.flatMap((c) => values.map((v) => (v === undefined ? c : { ...c, [name]: v })));
  return out;
}

async function balance(gw: TestGateway, userId: string): Promise<string> {
  return (await gw.admin<{ balanceMicroUsd: string }>('GET', `/admin/v1/users/${userId}/ledger`)).balanceMicroUsd;
}

/**
 * Creates every combination of every model, then waits for each accepted one to finish. A 400 must name
 * an `input.` field and leave the balance untouched; nothing may be refunded; the ledger verifies.
 */
export async function runCombinations(gw: TestGateway, models: Readonly<Record<string, ComboModel>>): Promise<ComboTally> {
  const { key, userId } = await gw.createUser(1_000_000);
  const catalog = (await gw.api(key, 'GET', '/api/v1/catalog')).body as CatalogEntry[];
  const created: Array<{ label: string; taskId: string }> = [];
  const tally: ComboTally = { accepted: 0, refused: 0, refusedBy: {} };
  for (const [modelId, spec] of Object.entries(models)) {
    const model = catalog.find((m) => m.id === modelId);
    assert.ok(model, `${modelId} is in the catalog`);
    for (const combo of combinations(model, spec)) {
      const label = `${modelId} ${JSON.stringify(combo)}`;
      const before = await balance(gw, userId);
      const res = await gw.api(key, 'POST', '/api/v1/generation/create', { model: modelId, input: { ...spec.base, ...combo } });
      if (res.status === 400) {
        const error = (res.body as { error: { param?: string; message: string } }).error;
        assert.match(error.param ?? '', /^input\./u, `${label}: the 400 names the field (${error.message})`);
        assert.equal(await balance(gw, userId), before, `${label}: nothing charged`);
        tally.refused += 1;
        tally.refusedBy[error.param ?? ''] = (tally.refusedBy[error.param ?? ''] ?? 0) + 1;
        continue;
      }
      assert.equal(res.status, 200, `${label}: ${JSON.stringify(res.body)}`);
      created.push({ label, taskId: (res.body as { data: { taskId: string } }).data.taskId });
    }
  }
  for (const { label, taskId } of created) {
    const task = await waitForTask(gw, key, taskId, 120_000);
    assert.equal(task.status, 'finished', `${label}: ${task.errorMessage}`);
  }
  tally.accepted = created.length;
  const ledger = await gw.admin<{ data: Array<{ kind: string }> }>('GET', `/admin/v1/users/${userId}/ledger?limit=1000`);
  assert.equal(ledger.data.filter((e) => e.kind === 'generation_refund').length, 0, 'no refund: nothing failed after a charge');
  assert.deepEqual(await verifyLedger(gw.gateway.services.database.db), []);
  return tally;
}
