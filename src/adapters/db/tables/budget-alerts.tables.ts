/** The budget alert tables as Kysely sees them (migration 045): the rows of ports/store-rows/budget-alerts.rows.ts. */
import type { BudgetAlertFiringsRow, BudgetAlertSettingsRow } from '../../../ports/store-rows/budget-alerts.rows.ts';

export interface BudgetAlertTables {
  budget_alert_settings: BudgetAlertSettingsRow;
  budget_alert_firings: BudgetAlertFiringsRow;
}
