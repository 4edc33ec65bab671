import type { Executor } from '../../schema.ts';
import type { AgentSettingsTable } from '../../tables/agent.tables.ts';

export type AgentSettingsRow = AgentSettingsTable;

export async function findAgentSettings(db: Executor, userId: string, storefront: string): Promise<AgentSettingsRow | undefined> {
  return db.selectFrom('agent_settings').selectAll().where('user_id', '=', userId).where('storefront', '=', storefront).executeTakeFirst();
}

/**
 * Saves by compare-and-set: version 0 inserts (only if no row exists yet), any other version updates
 * only the row still at it. Returns the new version, or undefined when `expectedVersion` was stale.
 */
export async function saveAgentSettings(db: Executor, userId: string, storefront: string, expectedVersion: number, settingsJson: string, now: number): Promise<number | undefined> {
  if (expectedVersion === 0) {
    const result = await db
      .insertInto('agent_settings')
      .values({ user_id: userId, storefront, version: 1, settings_json: settingsJson, updated_at: now })
      .onConflict((oc) => oc.columns(['user_id', 'storefront']).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0 ? 1 : undefined;
  }
  const row = await db
    .updateTable('agent_settings')
    .set({ version: expectedVersion + 1, settings_json: settingsJson, updated_at: now })
    .where('user_id', '=', userId)
    .where('storefront', '=', storefront)
    .where('version', '=', expectedVersion)
    .returning('version')
    .executeTakeFirst();
  return row?.version;
}
