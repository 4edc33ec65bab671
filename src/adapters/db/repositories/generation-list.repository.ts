import type { GenerationFilter, ListCursor } from '../../../ports/stats-store.port.ts';
import type { Executor } from '../schema.ts';
import type { TaskRow } from './tasks.repository.ts';

export type { GenerationFilter, ListCursor } from '../../../ports/stats-store.port.ts';

/** One page of a user's tasks, newest first, read along the (user_id, created_at, …) index. */
export async function listUserTasks(db: Executor, userId: string, filter: GenerationFilter, limit: number, after?: ListCursor): Promise<TaskRow[]> {
  let query = db.selectFrom('tasks').selectAll().where('user_id', '=', userId);
  if (filter.statuses && filter.statuses.length > 0) query = query.where('status', 'in', filter.statuses);
  if (filter.model !== undefined) query = query.where('model', '=', filter.model);
  if (filter.type !== undefined) query = query.where('type', '=', filter.type);
  if (filter.startMs !== undefined) query = query.where('created_at', '>=', filter.startMs);
  if (filter.endMs !== undefined) query = query.where('created_at', '<', filter.endMs);
  if (after) {
    query = query.where((eb) =>
      eb.or([eb('created_at', '<', after.createdAt), eb.and([eb('created_at', '=', after.createdAt), eb('id', '<', after.id)])]),
    );
  }
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}
