/**
 * Table types of the one data layer (Kysely) over SQLite and PostgreSQL. Times are integer
 * milliseconds since the epoch, money is integer micro-USD, flags are 0/1 integers and structured
 * values are JSON text, so that both engines store exactly the same values.
 */
import { Kysely, type Transaction } from 'kysely';
import type { StoreTransaction } from '../../ports/store-transaction.port.ts';
import type { AgentTables } from './tables/agent.tables.ts';
import type { AgentProjectTables } from './tables/agent-projects.tables.ts';
import type { BudgetAlertTables } from './tables/budget-alerts.tables.ts';
import type { ChatTables } from './tables/chat.tables.ts';
import type { CustomerGroupTables } from './tables/customer-groups.tables.ts';
import type { FoundationTables } from './tables/foundation.tables.ts';
import type { MediaTables } from './tables/media.tables.ts';
import type { OrganizationTables } from './tables/organizations.tables.ts';
import type { PaymentTables } from './tables/payments.tables.ts';
import type { SessionTables } from './tables/sessions.tables.ts';
import type { StatsTables } from './tables/stats.tables.ts';
import type { StorageTables } from './tables/storage.tables.ts';
import type { UpstreamTables } from './tables/upstreams.tables.ts';
import type { WorkQueueTables } from './tables/work-queue.tables.ts';

/** Every table; each feature declares its own in tables/ and is added here. */
export type Schema = FoundationTables & WorkQueueTables & MediaTables & ChatTables & SessionTables & StatsTables & AgentTables & StorageTables & PaymentTables & AgentProjectTables & UpstreamTables & OrganizationTables & CustomerGroupTables & BudgetAlertTables;

/** A connection or an open transaction: repository functions take either. */
export type Executor = Kysely<Schema> | Transaction<Schema>;

/**
 * The executor behind a port's store transaction. Every handle the gateway makes is a Kysely over
 * this schema (one per process), so the check at run time is whether it is a Kysely at all.
 */
export function executorOf(tx: StoreTransaction): Executor {
  if (!(tx instanceof Kysely)) throw new TypeError('not a transaction of the gateway store');
  return tx as Executor;
}
