import type { BudgetAlertStore, CappedMemberSpend, SpendCursor, SpendEntry } from '../../../ports/budget-alert-store.port.ts';
import type { BudgetAlertEmailStatus, BudgetAlertFiringsRow, BudgetAlertSettingsRow } from '../../../ports/store-rows/budget-alerts.rows.ts';
import type { StoreTransaction } from '../../../ports/store-transaction.port.ts';
import { executorOf } from '../schema.ts';

const num = (value: number | string | bigint | null): number | null => (value === null ? null : Number(value));

/** PostgreSQL hands bigint columns back as strings: every money and time column becomes a number here. */
function settingsOf(row: BudgetAlertSettingsRow): BudgetAlertSettingsRow {
  return {
    ...row,
    monthly_budget_micro: num(row.monthly_budget_micro),
    balance_below_micro: num(row.balance_below_micro),
    email_enabled: Number(row.email_enabled),
    updated_at: Number(row.updated_at),
    spent_micro: Number(row.spent_micro),
    cursor_at: Number(row.cursor_at),
    next_check_at: Number(row.next_check_at),
  };
}

function firingOf(row: BudgetAlertFiringsRow): BudgetAlertFiringsRow {
  return {
    ...row,
    threshold_percent: num(row.threshold_percent),
    threshold_micro: Number(row.threshold_micro),
    observed_micro: Number(row.observed_micro),
    notified: Number(row.notified),
    email_attempts: Number(row.email_attempts),
    fired_at: Number(row.fired_at),
  };
}

/** The budget alert store over Kysely, for SQLite and PostgreSQL alike. */
export class KyselyBudgetAlertStore implements BudgetAlertStore {
  async findSettings(tx: StoreTransaction, accountId: string): Promise<BudgetAlertSettingsRow | undefined> {
    const row = await executorOf(tx).selectFrom('budget_alert_settings').selectAll().where('account_id', '=', accountId).executeTakeFirst();
    return row && settingsOf(row);
  }

  async putSettings(tx: StoreTransaction, row: BudgetAlertSettingsRow): Promise<void> {
    await executorOf(tx)
      .insertInto('budget_alert_settings')
      .values(row)
      .onConflict((oc) =>
        oc.column('account_id').doUpdateSet({
          monthly_budget_micro: row.monthly_budget_micro,
          spend_percents_json: row.spend_percents_json,
          balance_below_micro: row.balance_below_micro,
          member_cap_percents_json: row.member_cap_percents_json,
          webhook_url: row.webhook_url,
          email_enabled: row.email_enabled,
          updated_by: row.updated_by,
          updated_at: row.updated_at,
          next_check_at: row.next_check_at,
        }),
      )
      .execute();
  }

  async deleteSettings(tx: StoreTransaction, accountId: string): Promise<boolean> {
    const result = await executorOf(tx).deleteFrom('budget_alert_settings').where('account_id', '=', accountId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async dueSettings(tx: StoreTransaction, now: number, limit: number): Promise<BudgetAlertSettingsRow[]> {
    const rows = await executorOf(tx).selectFrom('budget_alert_settings').selectAll().where('next_check_at', '<=', now).orderBy('next_check_at').orderBy('account_id').limit(limit).execute();
    return rows.map(settingsOf);
  }

  async entriesAfter(tx: StoreTransaction, accountId: string, cursorAt: number, cursorId: string, before: number, limit: number): Promise<SpendEntry[]> {
    const rows = await executorOf(tx)
      .selectFrom('ledger_entries')
      .select(['id', 'kind', 'amount_micro', 'created_at'])
      .where('user_id', '=', accountId)
      .where((eb) => eb.or([eb('created_at', '>', cursorAt), eb.and([eb('created_at', '=', cursorAt), eb('id', '>', cursorId)])]))
      .where('created_at', '<', before)
      .orderBy('created_at')
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ id: r.id, kind: r.kind, amount_micro: Number(r.amount_micro), created_at: Number(r.created_at) }));
  }

  async advanceSpend(tx: StoreTransaction, accountId: string, from: SpendCursor, to: SpendCursor, nextCheckAt: number): Promise<boolean> {
    const result = await executorOf(tx)
      .updateTable('budget_alert_settings')
      .set({ ...to, next_check_at: nextCheckAt })
      .where('account_id', '=', accountId)
      .where('spend_month', '=', from.spend_month)
      .where('cursor_at', '=', from.cursor_at)
      .where('cursor_id', '=', from.cursor_id)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async balanceOf(tx: StoreTransaction, accountId: string): Promise<number | undefined> {
    const row = await executorOf(tx).selectFrom('users').select('balance_micro').where('id', '=', accountId).executeTakeFirst();
    return row === undefined ? undefined : Number(row.balance_micro);
  }

  async cappedMemberSpend(tx: StoreTransaction, organizationId: string, month: string): Promise<CappedMemberSpend[]> {
    const rows = await executorOf(tx)
      .selectFrom('organization_members as m')
      .leftJoin('organization_member_spend as s', (join) => join.onRef('s.organization_id', '=', 'm.organization_id').onRef('s.user_id', '=', 'm.user_id').on('s.spend_month', '=', month))
      .select(['m.user_id', 'm.monthly_cap_micro', 's.spent_micro'])
      .where('m.organization_id', '=', organizationId)
      .where('m.monthly_cap_micro', 'is not', null)
      .where('m.monthly_cap_micro', '>', 0)
      .orderBy('m.user_id')
      .execute();
    return rows.map((r) => ({ user_id: r.user_id, monthly_cap_micro: Number(r.monthly_cap_micro), spent_micro: Number(r.spent_micro ?? 0) }));
  }

  async insertFiring(tx: StoreTransaction, row: BudgetAlertFiringsRow): Promise<boolean> {
    const result = await executorOf(tx)
      .insertInto('budget_alert_firings')
      .values(row)
      .onConflict((oc) => oc.columns(['account_id', 'alert_key', 'period']).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
  }

  async listFirings(tx: StoreTransaction, accountId: string, limit: number): Promise<BudgetAlertFiringsRow[]> {
    const rows = await executorOf(tx).selectFrom('budget_alert_firings').selectAll().where('account_id', '=', accountId).orderBy('fired_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
    return rows.map(firingOf);
  }

  async pendingEmails(tx: StoreTransaction, limit: number): Promise<BudgetAlertFiringsRow[]> {
    const rows = await executorOf(tx).selectFrom('budget_alert_firings').selectAll().where('email_status', '=', 'pending').orderBy('fired_at').orderBy('id').limit(limit).execute();
    return rows.map(firingOf);
  }

  async setWebhookDelivery(tx: StoreTransaction, firingId: string, deliveryId: string): Promise<void> {
    await executorOf(tx).updateTable('budget_alert_firings').set({ webhook_delivery_id: deliveryId }).where('id', '=', firingId).execute();
  }

  async claimEmail(tx: StoreTransaction, firingId: string, attemptsBefore: number): Promise<boolean> {
    const result = await executorOf(tx)
      .updateTable('budget_alert_firings')
      .set({ email_attempts: attemptsBefore + 1 })
      .where('id', '=', firingId)
      .where('email_status', '=', 'pending')
      .where('email_attempts', '=', attemptsBefore)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async finishEmail(tx: StoreTransaction, firingId: string, status: Exclude<BudgetAlertEmailStatus, 'pending'>): Promise<boolean> {
    const result = await executorOf(tx).updateTable('budget_alert_firings').set({ email_status: status }).where('id', '=', firingId).where('email_status', '=', 'pending').executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }
}
