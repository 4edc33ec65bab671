/**
 * Idempotency-Key on agent writes (AGENT.md "Idempotency"): the canonical-JSON hash of the body and
 * the first response are kept per (scope, key); the same key and hash replay the response, another
 * hash is 409 idempotency_key_reused. The key is reserved in the transaction that does the work and
 * stores its response, so a concurrent request with the same key waits for that commit (PostgreSQL's
 * unique index; SQLite's single writer) and then replays it.
 */
import { AppError } from '../../../../domain/errors.ts';
import type { Executor } from '../../schema.ts';

export async function findIdempotentResponse<T>(db: Executor, scope: string, key: string, hash: string): Promise<T | undefined> {
  const row = await db.selectFrom('idempotency_records').selectAll().where('scope', '=', scope).where('key', '=', key).executeTakeFirst();
  if (!row) return undefined;
  if (row.request_hash !== hash) throw new AppError('idempotency_key_reused', 'this Idempotency-Key was used with a different request body', { param: 'Idempotency-Key' });
  if (row.response_json === null) throw new AppError('idempotency_in_progress', 'a request with this Idempotency-Key is in progress', { retryAfter: 1 });
  return JSON.parse(row.response_json) as T;
}

/** Reserves the key in `tx`; when it was taken meanwhile, returns that request's response instead. */
export async function reserveIdempotencyKey<T>(tx: Executor, scope: string, key: string, hash: string, now: number): Promise<T | undefined> {
  const result = await tx
    .insertInto('idempotency_records')
    .values({ scope, key, request_hash: hash, response_json: null, status_code: null, created_at: now })
    .onConflict((oc) => oc.columns(['scope', 'key']).doNothing())
    .executeTakeFirst();
  if (Number(result.numInsertedOrUpdatedRows ?? 0n) > 0) return undefined;
  const replay = await findIdempotentResponse<T>(tx, scope, key, hash);
  if (replay === undefined) throw new AppError('idempotency_in_progress', 'a request with this Idempotency-Key is in progress', { retryAfter: 1 });
  return replay;
}

export async function storeIdempotentResponse(tx: Executor, scope: string, key: string, response: unknown): Promise<void> {
  await tx.updateTable('idempotency_records').set({ response_json: JSON.stringify(response), status_code: 200 }).where('scope', '=', scope).where('key', '=', key).execute();
}

/**
 * Removes records created before `before`: all at once for most scopes; a decision's only once its
 * run ended more than `decisionGraceMs` ago (AGENT.md "Idempotency"), up to `limit` of those per call.
 * Returns how many went.
 */
export async function pruneIdempotencyRecords(db: Executor, before: number, now: number, decisionGraceMs: number, limit: number): Promise<number> {
  const plain = await db.deleteFrom('idempotency_records').where('created_at', '<', before).where('scope', 'not like', 'agent_decision:%').executeTakeFirst();
  let removed = Number(plain.numDeletedRows);
  const decisions = await db
    .selectFrom('idempotency_records')
    .select(['scope', 'key'])
    .where('created_at', '<', before)
    .where('scope', 'like', 'agent_decision:%')
    .orderBy('created_at')
    .limit(limit)
    .execute();
  const runOf = (scope: string) => scope.slice(scope.lastIndexOf(':') + 1);
  const runIds = [...new Set(decisions.map((r) => runOf(r.scope)))];
  if (runIds.length === 0) return removed;
  const ended = new Set(
    (await db.selectFrom('agent_runs').select(['id', 'finished_at']).where('id', 'in', runIds).where('finished_at', '<', now - decisionGraceMs).execute()).map((r) => r.id),
  );
  for (const row of decisions) {
    if (!ended.has(runOf(row.scope))) continue;
    const result = await db.deleteFrom('idempotency_records').where('scope', '=', row.scope).where('key', '=', row.key).executeTakeFirst();
    removed += Number(result.numDeletedRows);
  }
  return removed;
}
