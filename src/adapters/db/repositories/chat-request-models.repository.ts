import type { Executor } from '../schema.ts';

/** The model each of the user's chat requests asked for: settled ones from chat_requests, running ones from their hold. */
export async function chatRequestModelsOf(db: Executor, userId: string, requestIds: readonly string[]): Promise<Map<string, string>> {
  if (requestIds.length === 0) return new Map();
  const [settled, running] = await Promise.all([
    db.selectFrom('chat_requests').select(['id', 'model']).where('user_id', '=', userId).where('id', 'in', requestIds).execute(),
    db.selectFrom('chat_holds').select(['id', 'model']).where('user_id', '=', userId).where('id', 'in', requestIds).execute(),
  ]);
  return new Map([...running, ...settled].map((r) => [r.id, r.model]));
}
