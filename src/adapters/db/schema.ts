/**
 * Table types of the one data layer (Kysely) over SQLite and PostgreSQL. Times are integer
 * milliseconds since the epoch, money is integer micro-USD, flags are 0/1 integers and structured
 * values are JSON text, so that both engines store exactly the same values.
 */
import type { Kysely, Transaction } from 'kysely';
import type { AgentTables } from './tables/agent.tables.ts';
import type { AgentProjectTables } from './tables/agent-projects.tables.ts';
import type { ChatTables } from './tables/chat.tables.ts';
import type { FoundationTables } from './tables/foundation.tables.ts';
import type { MediaTables } from './tables/media.tables.ts';
import type { PaymentTables } from './tables/payments.tables.ts';
import type { SessionTables } from './tables/sessions.tables.ts';
import type { StatsTables } from './tables/stats.tables.ts';
import type { StorageTables } from './tables/storage.tables.ts';
import type { WorkQueueTables } from './tables/work-queue.tables.ts';

/** Every table; each feature declares its own in tables/ and is added here. */
export type Schema = FoundationTables & WorkQueueTables & MediaTables & ChatTables & SessionTables & StatsTables & AgentTables & StorageTables & PaymentTables & AgentProjectTables;

/** A connection or an open transaction: repository functions take either. */
export type Executor = Kysely<Schema> | Transaction<Schema>;
