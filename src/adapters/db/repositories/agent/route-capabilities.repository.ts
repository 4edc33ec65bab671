/** The verified capabilities of text routes (GET /agent/models, rule 10): one verdict per (route, capability). */
import type { Executor } from '../../schema.ts';
import type { ChatRouteCapabilitiesTable } from '../../tables/agent.tables.ts';

export type RouteCapabilityRow = ChatRouteCapabilitiesTable;

export async function listRouteCapabilities(db: Executor, routes: Array<{ provider: string; model: string }>): Promise<RouteCapabilityRow[]> {
  if (routes.length === 0) return [];
  return db
    .selectFrom('chat_route_capabilities')
    .selectAll()
    .where((eb) => eb.or(routes.map((r) => eb.and([eb('provider', '=', r.provider), eb('upstream_model', '=', r.model)]))))
    .execute();
}

export async function listStaleRoutes(db: Executor, before: number): Promise<Array<{ provider: string; upstream_model: string }>> {
  return db.selectFrom('chat_route_capabilities').select(['provider', 'upstream_model']).where('checked_at', '<', before).distinct().execute();
}

export async function recordRouteCapability(db: Executor, row: RouteCapabilityRow): Promise<void> {
  await db
    .insertInto('chat_route_capabilities')
    .values(row)
    .onConflict((oc) => oc.columns(['provider', 'upstream_model', 'capability']).doUpdateSet({ ok: row.ok, detail: row.detail, checked_at: row.checked_at }))
    .execute();
}
