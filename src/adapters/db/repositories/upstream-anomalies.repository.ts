/** The upstream_anomalies table (migration 032) behind the UpstreamAnomalyLog port. */
import type { Kysely } from 'kysely';
import { newId } from '../../../domain/ids.ts';
import type { RecordedUpstreamAnomaly, UpstreamAnomaly, UpstreamAnomalyKind, UpstreamAnomalyLog, UpstreamAnomalyQuery } from '../../../ports/upstream-anomalies.port.ts';
import type { Schema } from '../schema.ts';

export class DbUpstreamAnomalyLog implements UpstreamAnomalyLog {
  readonly #db: Kysely<Schema>;

  constructor(db: Kysely<Schema>) {
    this.#db = db;
  }

  async record(anomalies: readonly UpstreamAnomaly[], at = Date.now()): Promise<void> {
    if (anomalies.length === 0) return;
    await this.#db
      .insertInto('upstream_anomalies')
      .values(
        anomalies.map((a) => ({
          id: newId('anom', at),
          created_at: at,
          provider: a.provider,
          model: a.model,
          upstream_model: a.upstreamModel,
          protocol: a.protocol,
          reference: a.reference,
          user_id: a.userId,
          field: a.field,
          kind: a.kind,
          reported: a.reported,
          billed: a.billed,
        })),
      )
      .execute();
  }

  async list(query: UpstreamAnomalyQuery): Promise<RecordedUpstreamAnomaly[]> {
    let select = this.#db.selectFrom('upstream_anomalies').selectAll();
    if (query.provider !== undefined) select = select.where('provider', '=', query.provider);
    if (query.before !== undefined) select = select.where('id', '<', query.before);
    const rows = await select.orderBy('id', 'desc').limit(query.limit).execute();
    return rows.map((r) => ({
      id: r.id,
      at: Number(r.created_at),
      provider: r.provider,
      model: r.model,
      upstreamModel: r.upstream_model,
      protocol: r.protocol,
      reference: r.reference,
      userId: r.user_id,
      field: r.field,
      kind: r.kind as UpstreamAnomalyKind,
      reported: r.reported,
      billed: r.billed === null ? null : Number(r.billed),
    }));
  }
}
