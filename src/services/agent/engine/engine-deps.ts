import type { Logger } from 'pino';
import type { Metrics } from '../../../adapters/metrics/metrics.ts';
import type { AgentConfig } from '../../../config/config.types.ts';
import type { Catalog } from '../../../domain/catalog/catalog.ts';
import type { BlobStore } from '../../../ports/blob-store.port.ts';
import type { ChatService } from '../../chat/chat.service.ts';
import type { RunOperationDoor } from '../../accounts/key-door.ts';
import type { AgentStore } from '../../../ports/agent-store.port.ts';
import type { LedgerBook } from '../../../ports/ledger.port.ts';
import type { TasksRow } from '../../../ports/store-rows/media.rows.ts';
import type { StoreTransaction } from '../../../ports/store-transaction.port.ts';
import type { UnitOfWork } from '../../../ports/unit-of-work.port.ts';
import type { AgentWriter } from '../events/agent-writer.ts';
import type { AttachmentsService } from '../attachments/attachments.service.ts';
import type { RouteCapabilities } from '../settings/route-capabilities.service.ts';
import type { FaultPoints } from '../../../ports/fault-points.port.ts';
import type { RunAborts } from './run-aborts.ts';

/**
 * A media generation as the engine dispatches it, through the media generation service at its
 * normal tariff (src/services/generation/create-generation.service.ts): bound by the agent module
 * to the gateway's routes, prices and store.
 */
export interface GenerationDispatch {
  /** Prices and routes the request as a create through the API would; nothing is written. Throws the create's refusals. */
  prepare(userId: string, body: unknown, now: number, extra: { agentRunId: string; apiKeyId: string | null }): Promise<TasksRow>;
  /** The task, its debit and its job, in the caller's transaction. */
  writePaid(tx: StoreTransaction, task: TasksRow): Promise<void>;
}

/** What the run engine works with; built once by the composition root. */
export interface EngineDeps {
  writer: AgentWriter;
  /** The agent's store; statements run in the writer's `tx`, or on `uow.direct` for a lone read. */
  store: AgentStore;
  uow: UnitOfWork;
  /** The money book: an abandoned call's hold is released through it. */
  ledger: LedgerBook;
  catalog: Catalog;
  attachments: AttachmentsService;
  chat: ChatService;
  /** The API key's door (allow-list, concurrency, rate), passed by each model call and media dispatch. */
  door: RunOperationDoor;
  generations: GenerationDispatch;
  blobs: BlobStore;
  capabilities: RouteCapabilities;
  config: AgentConfig;
  aborts: RunAborts;
  faults: FaultPoints;
  logger: Logger;
  metrics?: Metrics;
}

/** Per job invocation: how long it waited for the orchestrator model (the rest is the engine's own time). */
export interface StepClock {
  modelWaitMs: number;
}
