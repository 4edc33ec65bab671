import type { Logger } from 'pino';
import { type BudgetAlertChoices, type BudgetCrossing, budgetCrossings, parseBudgetAlertChoices, spendOf } from '../../domain/accounts/budget-alert-rules.ts';
import { AppError } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { JOB_QUEUES } from '../../domain/jobs/job-catalog.ts';
import { spendMonthOf } from '../../domain/ledger/key-spend-period.ts';
import { microToUsd } from '../../domain/money.ts';
import type { AccountStore, UserRow } from '../../ports/account-store.port.ts';
import type { BudgetAlertStore, SpendCursor, SpendEntry } from '../../ports/budget-alert-store.port.ts';
import type { Mailer } from '../../ports/mailer.port.ts';
import type { OrganizationStore } from '../../ports/organization-store.port.ts';
import type { BudgetAlertFiringsRow, BudgetAlertSettingsRow } from '../../ports/store-rows/budget-alerts.rows.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';
import { enqueueWebhookDelivery, type WebhookOutbox } from '../webhooks/webhook-deliveries.ts';
import { validateWebhookUrl, type WebhookUrlRules } from '../webhooks/webhook-url.ts';

/** Accounts looked at per round: a round's work is bounded however many accounts have alerts. */
export const ACCOUNTS_PER_ROUND = 100;
/** Ledger entries one account's check adds to its durable count; more wait for the next round. */
export const ENTRIES_PER_CHECK = 2_000;
/** The recent entries read on top of the durable count; an account spending faster is checked when caught up. */
export const RECENT_ENTRIES_LIMIT = 5_000;
/**
 * The durable count stops this far behind the clock: a ledger entry is written with its time before
 * its transaction commits, so one that commits late must not land behind the cursor. The entries
 * after it are counted at every check without moving the cursor.
 */
export const COMMIT_LAG_MS = 60_000;
const EMAILS_PER_ROUND = 50;
const EMAIL_ATTEMPTS = 5;
const FIRINGS_SHOWN = 50;

export interface BudgetAlertsDeps {
  store: BudgetAlertStore;
  accounts: AccountStore;
  organizations: OrganizationStore;
  uow: UnitOfWork;
  outbox: WebhookOutbox;
  mailer: Mailer;
  urlRules: WebhookUrlRules;
  publicBaseUrl: () => string;
  /** How often the workers look (SWITCHBOARD_BUDGET_ALERT_CHECK_MS). */
  checkIntervalMs: number;
  logger: Logger;
}

export interface BudgetAlertFiringView {
  id: string;
  kind: BudgetAlertFiringsRow['kind'];
  period: string;
  memberId: string | null;
  thresholdPercent: number | null;
  thresholdMicroUsd: string;
  observedMicroUsd: string;
  /** False: a higher threshold crossed in the same check was the one sent. */
  notified: boolean;
  email: BudgetAlertFiringsRow['email_status'];
  webhookDeliveryId: string | null;
  firedAt: string;
}

export interface BudgetAlertsView {
  monthlyBudgetMicroUsd: string | null;
  spendThresholdsPercent: number[];
  balanceBelowMicroUsd: string | null;
  memberCapThresholdsPercent: number[];
  webhookUrl: string | null;
  email: boolean;
  /** The month's spend as the last check counted it ('YYYY-MM'), null before any settings. */
  spendMonth: string | null;
  spentThisMonthMicroUsd: string;
  updatedAt: string | null;
  firings: BudgetAlertFiringView[];
}

function monthStart(now: number): number {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

function nextMonthStart(now: number): number {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

function choicesOf(row: BudgetAlertSettingsRow): BudgetAlertChoices {
  return {
    monthlyBudgetMicro: row.monthly_budget_micro,
    spendPercents: JSON.parse(row.spend_percents_json) as number[],
    balanceBelowMicro: row.balance_below_micro,
    memberCapPercents: JSON.parse(row.member_cap_percents_json) as number[],
    webhookUrl: row.webhook_url,
    email: row.email_enabled === 1,
  };
}

const sumSpend = (entries: SpendEntry[]) => entries.reduce((sum, e) => sum + spendOf(e.kind, e.amount_micro), 0);
const usd = (micro: number) => `$${microToUsd(Math.max(0, micro))}`;

/**
 * Budget alerts (issue 33, item 7). An account's owner (a person for their own account, an
 * organization's owner for it) chooses thresholds; a recurring job checks the accounts due, reads the
 * month's spend from the ledger behind a cursor (bounded work per round), the balance and members'
 * spend, and records each crossing once per month, with its signed webhook in the same transaction.
 * Its emails are sent after the commit, each attempt claimed first, so a crossing is mailed once
 * unless a process dies between sending and recording it (then it is mailed again).
 */
export class BudgetAlertsService {
  readonly #deps: BudgetAlertsDeps;

  constructor(deps: BudgetAlertsDeps) {
    this.#deps = deps;
  }

  async view(accountId: string): Promise<BudgetAlertsView> {
    const { store, uow } = this.#deps;
    const [row, firings] = await Promise.all([store.findSettings(uow.direct, accountId), store.listFirings(uow.direct, accountId, FIRINGS_SHOWN)]);
    const choices = row ? choicesOf(row) : undefined;
    return {
      monthlyBudgetMicroUsd: choices?.monthlyBudgetMicro != null ? String(choices.monthlyBudgetMicro) : null,
      spendThresholdsPercent: choices?.spendPercents ?? [],
      balanceBelowMicroUsd: choices?.balanceBelowMicro != null ? String(choices.balanceBelowMicro) : null,
      memberCapThresholdsPercent: choices?.memberCapPercents ?? [],
      webhookUrl: choices?.webhookUrl ?? null,
      email: choices?.email ?? true,
      spendMonth: row?.spend_month ?? null,
      // Still catching up (a busy account): the count so far, which only grows towards the month's.
      spentThisMonthMicroUsd: String(Math.max(0, row ? await this.#spentForView(row) : 0)),
      updatedAt: row ? new Date(row.updated_at).toISOString() : null,
      firings: firings.map(presentFiring),
    };
  }

  /** A person's own alerts (a signed-in person; an organization's go through put with the owner's seat). */
  async putOwn(personId: string, body: unknown, now: number = Date.now()): Promise<BudgetAlertsView> {
    const account = await this.#deps.accounts.findUser(this.#deps.uow.direct, personId);
    if (!account || account.kind === 'organization') throw new AppError('unauthorized', 'not signed in');
    return this.put(account, body, personId, now);
  }

  /** Replaces the account's alert settings (the caller checked who may); the next round checks them. */
  async put(account: UserRow, body: unknown, by: string, now: number = Date.now()): Promise<BudgetAlertsView> {
    const organization = account.kind === 'organization';
    const choices = parseBudgetAlertChoices(body, { organization, checkUrl: (value) => validateWebhookUrl(value, this.#deps.urlRules, 'webhookUrl') });
    await this.#deps.store.putSettings(this.#deps.uow.direct, {
      account_id: account.id,
      monthly_budget_micro: choices.monthlyBudgetMicro,
      spend_percents_json: JSON.stringify(choices.spendPercents),
      balance_below_micro: choices.balanceBelowMicro,
      member_cap_percents_json: JSON.stringify(choices.memberCapPercents),
      webhook_url: choices.webhookUrl,
      email_enabled: choices.email ? 1 : 0,
      updated_by: by,
      updated_at: now,
      // A new row counts its month from the start; an existing one keeps its count (the store's upsert).
      spend_month: spendMonthOf(now),
      spent_micro: 0,
      cursor_at: monthStart(now) - 1,
      cursor_id: '',
      next_check_at: now,
    });
    return this.view(account.id);
  }

  async remove(accountId: string): Promise<void> {
    if (!(await this.#deps.store.deleteSettings(this.#deps.uow.direct, accountId))) throw new AppError('not_found', 'no budget alerts are set');
  }

  /** One round of the recurring job: the due accounts, then the emails to send. */
  async checkRound(now: number = Date.now()): Promise<{ checked: number; fired: number; mailed: number }> {
    const due = await this.#deps.store.dueSettings(this.#deps.uow.direct, now, ACCOUNTS_PER_ROUND);
    let fired = 0;
    for (const row of due) {
      try {
        fired += await this.#check(row, now);
      } catch (error) {
        this.#deps.logger.warn({ err: error, accountId: row.account_id }, 'checking budget alerts failed; trying again next round');
      }
    }
    const mailed = await this.#sendEmails();
    return { checked: due.length, fired, mailed };
  }

  async #spentForView(row: BudgetAlertSettingsRow): Promise<number> {
    const counted = await this.#spentSince(row, Date.now());
    return counted.spent ?? counted.to.spent_micro;
  }

  /**
   * The month's spend at `now`: the durable count advanced by at most ENTRIES_PER_CHECK entries (the
   * new cursor), plus the entries after it when they are few enough to read (else spent is undefined).
   */
  async #spentSince(row: BudgetAlertSettingsRow, now: number): Promise<{ to: SpendCursor; caughtUp: boolean; spent: number | undefined }> {
    const { store, uow } = this.#deps;
    const month = spendMonthOf(now);
    const monthEnd = nextMonthStart(now);
    const start: SpendCursor = row.spend_month === month ? row : { spend_month: month, spent_micro: 0, cursor_at: monthStart(now) - 1, cursor_id: '' };
    const durable = await store.entriesAfter(uow.direct, row.account_id, start.cursor_at, start.cursor_id, Math.min(now - COMMIT_LAG_MS, monthEnd), ENTRIES_PER_CHECK);
    const last = durable.at(-1);
    const to: SpendCursor = { spend_month: month, spent_micro: start.spent_micro + sumSpend(durable), cursor_at: last?.created_at ?? start.cursor_at, cursor_id: last?.id ?? start.cursor_id };
    const caughtUp = durable.length < ENTRIES_PER_CHECK;
    // Judged only on a complete count: a partial one could be past a refund's debit without the refund.
    if (!caughtUp) return { to, caughtUp, spent: undefined };
    const recent = await store.entriesAfter(uow.direct, row.account_id, to.cursor_at, to.cursor_id, monthEnd, RECENT_ENTRIES_LIMIT);
    return { to, caughtUp, spent: recent.length < RECENT_ENTRIES_LIMIT ? to.spent_micro + sumSpend(recent) : undefined };
  }

  async #check(row: BudgetAlertSettingsRow, now: number): Promise<number> {
    const { store, uow, outbox } = this.#deps;
    const month = spendMonthOf(now);
    const { to, caughtUp, spent: spentNow } = await this.#spentSince(row, now);
    const account = await this.#deps.accounts.findUser(uow.direct, row.account_id);
    if (!account) return 0;
    const balance = (await store.balanceOf(uow.direct, row.account_id)) ?? 0;
    const choices = choicesOf(row);
    const members = account.kind === 'organization' && choices.memberCapPercents.length > 0 ? await store.cappedMemberSpend(uow.direct, row.account_id, month) : [];
    const crossings = budgetCrossings(
      { ...choices, monthlyBudgetMicro: spentNow === undefined ? null : choices.monthlyBudgetMicro },
      { spentMicro: spentNow ?? 0, balanceMicro: balance, members: members.map((m) => ({ userId: m.user_id, capMicro: m.monthly_cap_micro, spentMicro: m.spent_micro })) },
    );
    const nextCheckAt = caughtUp ? now + this.#deps.checkIntervalMs : now;
    let webhooks = 0;
    const fired = await uow.transaction(async (tx) => {
      if (!(await store.advanceSpend(tx, row.account_id, row, to, nextCheckAt))) return 0;
      let n = 0;
      for (const crossing of crossings) {
        const firing = this.#firingRow(row.account_id, month, crossing, choices, now);
        if (!(await store.insertFiring(tx, firing))) continue;
        n++;
        if (!crossing.notified || choices.webhookUrl === null) continue;
        const deliveryId = await enqueueWebhookDelivery(tx, outbox, {
          userId: row.account_id,
          messageId: firing.id,
          eventType: `budget.${crossing.kind}`,
          url: choices.webhookUrl,
          body: webhookBody(account, firing),
          now,
        });
        if (deliveryId !== undefined) {
          await store.setWebhookDelivery(tx, firing.id, deliveryId);
          webhooks++;
        }
      }
      return n;
    });
    if (webhooks > 0) await outbox.queue.wake(JOB_QUEUES.webhooks);
    return fired;
  }

  #firingRow(accountId: string, period: string, crossing: BudgetCrossing, choices: BudgetAlertChoices, now: number): BudgetAlertFiringsRow {
    return {
      id: newId('bal', now),
      account_id: accountId,
      alert_key: crossing.alertKey,
      period,
      kind: crossing.kind,
      member_id: crossing.memberId,
      threshold_percent: crossing.thresholdPercent,
      threshold_micro: crossing.thresholdMicro,
      observed_micro: crossing.observedMicro,
      notified: crossing.notified ? 1 : 0,
      email_status: crossing.notified && choices.email ? 'pending' : 'none',
      email_attempts: 0,
      webhook_delivery_id: null,
      fired_at: now,
    };
  }

  async #sendEmails(): Promise<number> {
    const { store, uow, mailer, logger } = this.#deps;
    let mailed = 0;
    for (const firing of await store.pendingEmails(uow.direct, EMAILS_PER_ROUND)) {
      if (!(await store.claimEmail(uow.direct, firing.id, firing.email_attempts))) continue;
      const account = await this.#deps.accounts.findUser(uow.direct, firing.account_id);
      const to = account ? await this.#recipients(account, firing) : [];
      if (!account || to.length === 0) {
        await store.finishEmail(uow.direct, firing.id, 'none');
        continue;
      }
      try {
        const message = alertMessage(account, firing, this.#deps.publicBaseUrl());
        for (const address of to) await mailer.send({ to: address, ...message });
        await store.finishEmail(uow.direct, firing.id, 'sent');
        mailed++;
      } catch (error) {
        const last = firing.email_attempts + 1 >= EMAIL_ATTEMPTS;
        logger.warn({ err: error, firingId: firing.id, attempt: firing.email_attempts + 1 }, last ? 'a budget alert email could not be sent; giving up' : 'a budget alert email could not be sent; trying again next round');
        if (last) await store.finishEmail(uow.direct, firing.id, 'failed');
      }
    }
    return mailed;
  }

  /** A person's own address; an organization's owners, and for a member's cap that member too. */
  async #recipients(account: UserRow, firing: BudgetAlertFiringsRow): Promise<string[]> {
    if (account.kind !== 'organization') return account.email ? [account.email] : [];
    const members = await this.#deps.organizations.listMembers(this.#deps.uow.direct, account.id);
    const to = members.filter((m) => m.role === 'owner' || m.user_id === firing.member_id).map((m) => m.email);
    return [...new Set(to.filter((e): e is string => typeof e === 'string' && e.length > 0))];
  }
}

function presentFiring(f: BudgetAlertFiringsRow): BudgetAlertFiringView {
  return {
    id: f.id,
    kind: f.kind,
    period: f.period,
    memberId: f.member_id,
    thresholdPercent: f.threshold_percent,
    thresholdMicroUsd: String(f.threshold_micro),
    observedMicroUsd: String(f.observed_micro),
    notified: f.notified === 1,
    email: f.email_status,
    webhookDeliveryId: f.webhook_delivery_id,
    firedAt: new Date(f.fired_at).toISOString(),
  };
}

/** The event a receiver gets: the crossing in the API's money fields, signed like every webhook of the account. */
function webhookBody(account: UserRow, firing: BudgetAlertFiringsRow) {
  const firedAt = new Date(firing.fired_at).toISOString();
  return {
    type: `budget.${firing.kind}`,
    timestamp: firedAt,
    data: {
      id: firing.id,
      accountId: account.id,
      accountKind: account.kind ?? 'person',
      kind: firing.kind,
      period: firing.period,
      memberId: firing.member_id,
      thresholdPercent: firing.threshold_percent,
      thresholdMicroUsd: String(firing.threshold_micro),
      observedMicroUsd: String(firing.observed_micro),
      firedAt,
    },
  };
}

/** What the threshold was a percentage of: the budget or cap, kept in the alert's key. */
function baseOf(firing: BudgetAlertFiringsRow): number {
  const parts = firing.alert_key.split(':');
  return Number(parts.at(-1) ?? 0);
}

function alertMessage(account: UserRow, firing: BudgetAlertFiringsRow, baseUrl: string): { subject: string; text: string } {
  const who = account.kind === 'organization' ? (account.name ?? 'Your organization') : 'Your account';
  const link = account.kind === 'organization' ? `${baseUrl}/organizations/${account.id}` : `${baseUrl}/account`;
  let headline: string;
  let subject: string;
  if (firing.kind === 'spend') {
    headline = `${who} has spent ${usd(firing.observed_micro)} in ${firing.period}, past ${firing.threshold_percent}% of its ${usd(baseOf(firing))} monthly budget.`;
    subject = `Switchboard: ${who} passed ${firing.threshold_percent}% of its monthly budget`;
  } else if (firing.kind === 'balance_below') {
    headline = `${who}'s balance is ${usd(firing.observed_micro)}, below the ${usd(firing.threshold_micro)} you asked to be told about.`;
    subject = `Switchboard: ${who}'s balance is below ${usd(firing.threshold_micro)}`;
  } else {
    headline = `A member of ${who} has spent ${usd(firing.observed_micro)} of it in ${firing.period}, past ${firing.threshold_percent}% of their ${usd(baseOf(firing))} monthly cap.`;
    subject = `Switchboard: a member of ${who} passed ${firing.threshold_percent}% of their monthly cap`;
  }
  return { subject, text: `${headline}\n\nThis alert is sent once per month. Change or turn off your alerts at ${link}\n` };
}
