/**
 * Budget alerts (issue 33, item 7): what an owner may ask to be told about, and which of those a
 * check's figures have crossed. Pure: the service reads the figures and records the crossings.
 *
 * - spend: the month's spend (UTC calendar month) reaches a percentage of a monthly budget;
 * - balance_below: the balance falls below an amount;
 * - member_cap (organizations): a member's spend of the month reaches a percentage of their cap.
 *
 * Each alert fires once per month. Its key holds what it is measured against (the budget, the
 * amount, the member and their cap), so changing the budget or a cap arms its alerts again.
 */
import { invalidInput } from '../errors.ts';
import type { BudgetAlertKind } from '../../ports/store-rows/budget-alerts.rows.ts';

export interface BudgetAlertChoices {
  monthlyBudgetMicro: number | null;
  spendPercents: number[];
  balanceBelowMicro: number | null;
  memberCapPercents: number[];
  webhookUrl: string | null;
  email: boolean;
}

/** The month's spend, the balance and (organizations) each capped member's spend, as a check read them. */
export interface BudgetFigures {
  spentMicro: number;
  balanceMicro: number;
  members: Array<{ userId: string; capMicro: number; spentMicro: number }>;
}

export interface BudgetCrossing {
  alertKey: string;
  kind: BudgetAlertKind;
  memberId: string | null;
  thresholdPercent: number | null;
  thresholdMicro: number;
  observedMicro: number;
  /** False for a lower threshold crossed with a higher one in the same check: only the highest is sent. */
  notified: boolean;
}

export const MAX_THRESHOLDS = 10;
export const MAX_PERCENT = 1000;
/** A budget or amount up to $10 million: percentages of it stay exact in integer arithmetic. */
export const MAX_ALERT_AMOUNT_MICRO = 10_000_000_000_000;

/** Ledger kinds that bring money in; every other movement out of the account is spend (a refund lowers it). */
const CREDIT_KINDS: ReadonlySet<string> = new Set(['credit', 'initial_credit', 'topup_credit', 'redeem_credit']);

/** What one ledger entry adds to the month's spend. */
export function spendOf(kind: string, amountMicro: number): number {
  return CREDIT_KINDS.has(kind) ? 0 : -amountMicro;
}

function amountOrNull(value: unknown, field: string): number | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0 || value > MAX_ALERT_AMOUNT_MICRO) {
    throw invalidInput(`${field} must be a whole number of micro-USD from 1 to ${MAX_ALERT_AMOUNT_MICRO}, or null`, field);
  }
  return value;
}

function percents(value: unknown, field: string): number[] {
  if (value === null || value === undefined) return [];
  if (!Array.isArray(value) || value.length > MAX_THRESHOLDS) throw invalidInput(`${field} must be a list of at most ${MAX_THRESHOLDS} percentages`, field);
  for (const p of value) {
    if (typeof p !== 'number' || !Number.isInteger(p) || p < 1 || p > MAX_PERCENT) throw invalidInput(`${field} holds whole percentages from 1 to ${MAX_PERCENT}`, field);
  }
  return [...new Set(value as number[])].sort((a, b) => a - b);
}

const FIELDS = ['monthlyBudgetMicroUsd', 'spendThresholdsPercent', 'balanceBelowMicroUsd', 'memberCapThresholdsPercent', 'webhookUrl', 'email'];

/**
 * The owner's body, checked; `webhookUrl` is given to `checkUrl` (the address policy). Percentages
 * without a budget are refused rather than kept unused, and member caps only exist in organizations.
 */
export function parseBudgetAlertChoices(body: unknown, options: { organization: boolean; checkUrl: (value: unknown) => string }): BudgetAlertChoices {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalidInput(`the body must be an object with ${FIELDS.join(', ')}`, 'body');
  const fields = body as Record<string, unknown>;
  for (const key of Object.keys(fields)) if (!FIELDS.includes(key)) throw invalidInput(`unknown field ${key.slice(0, 80)}; allowed: ${FIELDS.join(', ')}`, key.slice(0, 80));
  const monthlyBudgetMicro = amountOrNull(fields.monthlyBudgetMicroUsd, 'monthlyBudgetMicroUsd');
  const spendPercents = percents(fields.spendThresholdsPercent, 'spendThresholdsPercent');
  if (spendPercents.length > 0 && monthlyBudgetMicro === null) throw invalidInput('spendThresholdsPercent needs monthlyBudgetMicroUsd: the percentages are of that budget', 'monthlyBudgetMicroUsd');
  if (monthlyBudgetMicro !== null && spendPercents.length === 0) throw invalidInput('monthlyBudgetMicroUsd needs spendThresholdsPercent, e.g. [50, 80, 100]', 'spendThresholdsPercent');
  const memberCapPercents = percents(fields.memberCapThresholdsPercent, 'memberCapThresholdsPercent');
  if (memberCapPercents.length > 0 && !options.organization) throw invalidInput('memberCapThresholdsPercent is for organizations (their members have caps)', 'memberCapThresholdsPercent');
  const email = fields.email ?? true;
  if (typeof email !== 'boolean') throw invalidInput('email must be true or false', 'email');
  const webhookUrl = fields.webhookUrl === null || fields.webhookUrl === undefined || fields.webhookUrl === '' ? null : options.checkUrl(fields.webhookUrl);
  return { monthlyBudgetMicro, spendPercents, balanceBelowMicro: amountOrNull(fields.balanceBelowMicroUsd, 'balanceBelowMicroUsd'), memberCapPercents, webhookUrl, email };
}

/** The smallest whole micro-USD amount at or past `percent` of `base`. */
function thresholdOf(base: number, percent: number): number {
  return Number((BigInt(base) * BigInt(percent) + 99n) / 100n);
}

/** Crossed percentages of `base`, the highest one notified. */
function crossedPercents(
  base: number,
  observed: number,
  list: number[],
  make: (percent: number, thresholdMicro: number) => Omit<BudgetCrossing, 'notified'>,
): BudgetCrossing[] {
  const crossed = list.filter((p) => observed >= thresholdOf(base, p));
  const highest = crossed.at(-1);
  return crossed.map((p) => ({ ...make(p, thresholdOf(base, p)), notified: p === highest }));
}

/** Every alert the figures have crossed (already recorded ones included: the store keeps one per period). */
export function budgetCrossings(choices: BudgetAlertChoices, figures: BudgetFigures): BudgetCrossing[] {
  const out: BudgetCrossing[] = [];
  const budget = choices.monthlyBudgetMicro;
  if (budget !== null) {
    out.push(
      ...crossedPercents(budget, figures.spentMicro, choices.spendPercents, (p, t) => ({
        alertKey: `spend:${p}:${budget}`,
        kind: 'spend',
        memberId: null,
        thresholdPercent: p,
        thresholdMicro: t,
        observedMicro: figures.spentMicro,
      })),
    );
  }
  const below = choices.balanceBelowMicro;
  if (below !== null && figures.balanceMicro < below) {
    out.push({ alertKey: `balance_below:${below}`, kind: 'balance_below', memberId: null, thresholdPercent: null, thresholdMicro: below, observedMicro: figures.balanceMicro, notified: true });
  }
  if (choices.memberCapPercents.length > 0) {
    for (const member of figures.members) {
      out.push(
        ...crossedPercents(member.capMicro, member.spentMicro, choices.memberCapPercents, (p, t) => ({
          alertKey: `member_cap:${p}:${member.userId}:${member.capMicro}`,
          kind: 'member_cap',
          memberId: member.userId,
          thresholdPercent: p,
          thresholdMicro: t,
          observedMicro: member.spentMicro,
        })),
      );
    }
  }
  return out;
}
