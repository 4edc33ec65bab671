/**
 * The run view is one snapshot (issue 17, item 6): a run's settled total and its operations are read
 * together, so a settlement that commits while the view is being read shows in both or in neither.
 * The test makes that race certain: a plugin on the view's database handle commits a settlement
 * right after the run row was read and before the operations are.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type KyselyPlugin, type PluginTransformQueryArgs, type PluginTransformResultArgs, type QueryResult, type RootOperationNode, type UnknownRow, sql } from 'kysely';
import { KyselyAgentLibraryStore } from '../../../src/adapters/db/stores/agent-library-store.ts';
import { KyselyAgentViews } from '../../../src/adapters/db/stores/agent-views.ts';
import { kyselyUnitOfWork } from '../../../src/adapters/db/stores/kysely-unit-of-work.ts';
import { RunViewsService } from '../../../src/services/agent/runs/run-views.service.ts';
import { agentClient, type RunView } from '../../support/agent.ts';
import { describeEachMode } from '../../support/gateway.ts';

/** Runs `between` once, after the first query that reads agent_runs has returned its rows. */
class AfterRunRead implements KyselyPlugin {
  #between: (() => Promise<void>) | undefined;
  readonly #runQueries = new WeakSet<object>();

  constructor(between: () => Promise<void>) {
    this.#between = between;
  }

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    if (JSON.stringify(args.node).includes('"agent_runs"')) this.#runQueries.add(args.queryId);
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    if (this.#runQueries.has(args.queryId) && this.#between) {
      const between = this.#between;
      this.#between = undefined;
      await between();
    }
    return args.result;
  }
}

describeEachMode('the run view is one snapshot', (ctx) => {
  test('a settlement committed while the view is read shows in both the run total and its operations, or in neither', async () => {
    const gw = ctx.gw;
    const c = await agentClient(gw);
    const conversationId = await c.conversation({ title: 'snapshot' });
    const run = await c.send(conversationId, 'an image of a red fox in the snow');
    const done = await c.waitFor(run.runId, ['completed', 'failed'], 30_000);
    assert.equal(done.status, 'completed', JSON.stringify(done.error));
    const settled = done.costs.operations.find((o) => o.state === 'settled');
    assert.ok(settled, 'the run has a settled operation');

    const db = gw.gateway.services.database.db;
    const operation = await db.selectFrom('agent_operations').select(['id']).where('run_id', '=', run.runId).where('state', '=', 'settled').executeTakeFirstOrThrow();
    // A late settlement of 7 micro-USD: the operation and the run's total move together, in one commit.
    const settleMore = () =>
      db.transaction().execute(async (tx) => {
        await tx.updateTable('agent_operations').set({ cost_micro: sql<number>`cost_micro + 7` }).where('id', '=', operation.id).execute();
        await tx.updateTable('agent_runs').set({ settled_micro: sql<number>`settled_micro + 7` }).where('id', '=', run.runId).execute();
      });
    // On SQLite the view's transaction holds the single writer off, so the settlement waits for the view:
    // the plugin gives it a moment to commit (it does at once on PostgreSQL, and did on either before).
    let settlement: Promise<void> | undefined;
    const between = async () => {
      settlement = settleMore();
      await Promise.race([settlement, new Promise((resolve) => setTimeout(resolve, 300))]);
    };
    const views = new RunViewsService({ views: new KyselyAgentViews(), store: new KyselyAgentLibraryStore(), uow: kyselyUnitOfWork(db.withPlugin(new AfterRunRead(between))), blobs: gw.gateway.services.blobs });
    const caller = { userId: c.userId, keyId: null, storefront: gw.gateway.services.config.storefronts[0] ?? { id: 'default' } } as Parameters<RunViewsService['run']>[0];
    const view = (await views.run(caller, run.runId)) as unknown as RunView;
    const sum = view.costs.operations.filter((o) => o.state === 'settled').reduce((n, o) => n + Number(o.costMicroUsd), 0);
    assert.equal(Number(view.costs.settledMicroUsd), sum, 'the settled total is the sum of the settled operations in the same view');
    // The settlement did commit: a fresh view shows it in both.
    await settlement;
    const after = await c.run(run.runId);
    assert.equal(Number(after.costs.settledMicroUsd), Number(done.costs.settledMicroUsd) + 7);
  });
});
