/**
 * `ledger verify` (src/cli/admin-commands.ts): the books' invariants, as a list of what breaks them
 * (empty when they hold), in the ledger's vocabulary: entry kinds are domain/ledger's LedgerKind, an
 * account's figures are its balance and what is held (domain/ledger/settlement.ts).
 * - every balance is the sum of its ledger entries;
 * - every account's held money is the sum of its running requests' holds;
 * - every agent run's budget agrees with its operations (settled and committed totals, within the
 *   limit), and each closed operation with the ledger (a chat call's charge, a generation's debit less
 *   refund);
 * - every storage charge has its `storage_charge` entry of the same amount, and the reverse;
 * - every paid top-up has exactly its one `topup_credit`, and every such credit a paid checkout.
 */
import { sql } from 'kysely';
import type { LedgerKind } from '../../../domain/ledger/ledger-kinds.ts';
import { findOperationLedgerMismatches, type OperationLedgerMismatch } from '../repositories/agent/operations.repository.ts';
import type { Executor } from '../schema.ts';

const STORAGE_CHARGE: LedgerKind = 'storage_charge';
const TOPUP_CREDIT: LedgerKind = 'topup_credit';

export type LedgerMismatch = BalanceMismatch | HeldMismatch | RunBookMismatch | OperationLedgerMismatch | StorageChargeMismatch | PaidCheckoutMismatch;

/** Every invariant above, checked in turn. */
export async function verifyLedger(db: Executor): Promise<LedgerMismatch[]> {
  return [
    ...(await findBalanceMismatches(db)),
    ...(await findHeldMismatches(db)),
    ...(await findRunBookMismatches(db)),
    ...(await findOperationLedgerMismatches(db)),
    ...(await findStorageChargeMismatches(db)),
    ...(await findCheckoutLedgerMismatches(db)),
  ];
}

export interface BalanceMismatch {
  userId: string;
  balanceMicro: number;
  ledgerSumMicro: number;
}

/** Accounts whose balance is not the sum of their entries (empty when the books are right). */
export async function findBalanceMismatches(db: Executor): Promise<BalanceMismatch[]> {
  const rows = await db
    .selectFrom('users as u')
    .leftJoin('ledger_entries as e', 'e.user_id', 'u.id')
    .select(['u.id', 'u.balance_micro', sql<number>`coalesce(sum(e.amount_micro), 0)`.as('ledger_sum')])
    .groupBy(['u.id', 'u.balance_micro'])
    .having(sql<boolean>`u.balance_micro <> coalesce(sum(e.amount_micro), 0)`)
    .execute();
  return rows.map((r) => ({ userId: r.id, balanceMicro: Number(r.balance_micro), ledgerSumMicro: Number(r.ledger_sum) }));
}

export interface HeldMismatch {
  userId: string;
  heldMicro: number;
  holdsSumMicro: number;
}

/**
 * Accounts whose `held_micro` is not the sum of their running requests' holds (`chat_holds`): a hold
 * and its row are written in one transaction, and so are their release and the row's deletion.
 */
export async function findHeldMismatches(db: Executor): Promise<HeldMismatch[]> {
  const rows = await db
    .selectFrom('users as u')
    .leftJoin('chat_holds as h', 'h.user_id', 'u.id')
    .select(['u.id', 'u.held_micro', sql<number>`coalesce(sum(h.hold_micro), 0)`.as('holds_sum')])
    .groupBy(['u.id', 'u.held_micro'])
    .having(sql<boolean>`u.held_micro <> coalesce(sum(h.hold_micro), 0)`)
    .execute();
  return rows.map((r) => ({ userId: r.id, heldMicro: Number(r.held_micro), holdsSumMicro: Number(r.holds_sum) }));
}

export interface RunBookMismatch {
  runId: string;
  settledMicro: number;
  committedMicro: number;
  operationsSettledMicro: number;
  operationsCommittedMicro: number;
  limitMicro: number;
}

/** Runs whose settled/committed totals are not the sums of their operations, or pass their limit. */
export async function findRunBookMismatches(db: Executor): Promise<RunBookMismatch[]> {
  const rows = await db
    .selectFrom('agent_runs as r')
    .leftJoin('agent_operations as o', 'o.run_id', 'r.id')
    .select([
      'r.id',
      'r.settled_micro',
      'r.committed_micro',
      'r.limit_micro',
      sql<number>`coalesce(sum(case when o.state = 'settled' then o.cost_micro else 0 end), 0)`.as('ops_settled'),
      sql<number>`coalesce(sum(case when o.state = 'committed' then o.estimate_micro else 0 end), 0)`.as('ops_committed'),
    ])
    .groupBy(['r.id', 'r.settled_micro', 'r.committed_micro', 'r.limit_micro'])
    .having((eb) =>
      eb.or([
        eb(sql<number>`coalesce(sum(case when o.state = 'settled' then o.cost_micro else 0 end), 0)`, '<>', eb.ref('r.settled_micro')),
        eb(sql<number>`coalesce(sum(case when o.state = 'committed' then o.estimate_micro else 0 end), 0)`, '<>', eb.ref('r.committed_micro')),
        eb(sql<number>`r.settled_micro + r.committed_micro`, '>', eb.ref('r.limit_micro')),
      ]),
    )
    .execute();
  return rows.map((r) => ({
    runId: r.id,
    settledMicro: Number(r.settled_micro),
    committedMicro: Number(r.committed_micro),
    operationsSettledMicro: Number(r.ops_settled),
    operationsCommittedMicro: Number(r.ops_committed),
    limitMicro: Number(r.limit_micro),
  }));
}

export interface StorageChargeMismatch {
  reference: string;
  chargeMicro: number | null;
  ledgerMicro: number | null;
}

/** `ledger verify`: every storage charge has its ledger entry of the same amount, and the reverse. */
export async function findStorageChargeMismatches(db: Executor): Promise<StorageChargeMismatch[]> {
  const { rows } = await sql<{ reference: string; charge: number | null; ledger: number | null }>`
    select c.reference as reference, c.amount_micro as charge, -l.amount_micro as ledger
      from storage_charges c left join ledger_entries l on l.kind = ${STORAGE_CHARGE} and l.reference = c.reference
     where l.id is null or -l.amount_micro <> c.amount_micro
    union all
    select l.reference, null, -l.amount_micro
      from ledger_entries l left join storage_charges c on c.reference = l.reference
     where l.kind = ${STORAGE_CHARGE} and c.id is null`.execute(db);
  return rows.map((r) => ({ reference: r.reference, chargeMicro: r.charge === null ? null : Number(r.charge), ledgerMicro: r.ledger === null ? null : Number(r.ledger) }));
}

export interface PaidCheckoutMismatch {
  checkoutId: string;
  sessionId: string | null;
  problem: 'paid_without_credit' | 'credit_without_paid';
}

/** `ledger verify`: every paid checkout has its one `topup_credit`, and every such credit a paid checkout. */
export async function findCheckoutLedgerMismatches(db: Executor): Promise<PaidCheckoutMismatch[]> {
  const paidWithout = await db
    .selectFrom('payment_checkouts as c')
    .leftJoin('ledger_entries as e', (join) => join.on('e.kind', '=', TOPUP_CREDIT).onRef('e.reference', '=', 'c.session_id'))
    .select(['c.id', 'c.session_id'])
    .where('c.status', '=', 'paid')
    .where((eb) => eb.or([eb('e.id', 'is', null), eb('e.amount_micro', '<>', eb.ref('c.amount_micro'))]))
    .execute();
  const creditWithout = await db
    .selectFrom('ledger_entries as e')
    .leftJoin('payment_checkouts as c', 'c.session_id', 'e.reference')
    .select(['e.reference', 'c.id', 'c.status'])
    .where('e.kind', '=', TOPUP_CREDIT)
    .where((eb) => eb.or([eb('c.id', 'is', null), eb('c.status', '<>', 'paid')]))
    .execute();
  return [
    ...paidWithout.map((r) => ({ checkoutId: r.id, sessionId: r.session_id, problem: 'paid_without_credit' as const })),
    ...creditWithout.map((r) => ({ checkoutId: r.id ?? '', sessionId: r.reference, problem: 'credit_without_paid' as const })),
  ];
}
