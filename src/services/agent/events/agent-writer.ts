/**
 * The agent's transactions: a state change, the events that describe it and the jobs it needs,
 * committed together; then, only after the commit, the events are published to live readers and the
 * queues woken. A crash between the two loses nothing: readers and workers find the rows anyway.
 */
import type { Logger } from 'pino';
import type { AgentEvent } from '../../../domain/agent/agent-events.ts';
import type { AgentStore } from '../../../ports/agent-store.port.ts';
import type { StoreTransaction } from '../../../ports/store-transaction.port.ts';
import type { UnitOfWork } from '../../../ports/unit-of-work.port.ts';
import type { WorkQueue } from '../../../ports/work-queue.port.ts';
import { JOB_QUEUES } from '../../../domain/jobs/job-catalog.ts';
import { appendEvent, type EnqueueEventDelivery, type NewAgentEvent } from './event-log.ts';
import type { AgentEventHub } from './event-hub.ts';

export interface TxEffects {
  readonly now: number;
  /** The agent's store, for the statements of this transaction (its `tx`). */
  readonly store: AgentStore;
  /** Stores the event in this transaction; undefined when its conversation was deleted. */
  emit(event: NewAgentEvent): Promise<AgentEvent | undefined>;
  /** Wakes the workers of `queue` after the commit. */
  wake(queue: string): void;
  /** Runs after the commit (never when the transaction rolled back). */
  after(fn: () => Promise<void> | void): void;
}

export interface AgentWriterDeps {
  uow: UnitOfWork;
  store: AgentStore;
  queue: WorkQueue;
  /** Writes the webhook delivery of an event a destination subscribed to. */
  enqueueDelivery: EnqueueEventDelivery;
  hub: AgentEventHub;
  logger: Logger;
}

export class AgentWriter {
  readonly #deps: AgentWriterDeps;

  constructor(deps: AgentWriterDeps) {
    this.#deps = deps;
  }

  get store(): AgentStore {
    return this.#deps.store;
  }

  /** The store outside any transaction, for a lone read. */
  get direct(): StoreTransaction {
    return this.#deps.uow.direct;
  }

  get queue(): WorkQueue {
    return this.#deps.queue;
  }

  async run<T>(work: (tx: StoreTransaction, fx: TxEffects) => Promise<T>, now: number = Date.now()): Promise<T> {
    const events: AgentEvent[] = [];
    const wakes = new Set<string>();
    const afters: Array<() => Promise<void> | void> = [];
    const { queue, store, enqueueDelivery } = this.#deps;
    const result = await this.#deps.uow.transaction((tx) => {
      const fx: TxEffects = {
        now,
        store,
        async emit(event) {
          const appended = await appendEvent(tx, store, enqueueDelivery, event, now);
          if (!appended) return undefined;
          events.push(appended.event);
          if (appended.webhooks > 0) wakes.add(JOB_QUEUES.webhooks);
          return appended.event;
        },
        wake: (name) => void wakes.add(name),
        after: (fn) => void afters.push(fn),
      };
      return work(tx, fx);
    });
    for (const name of wakes) {
      try {
        await queue.wake(name);
      } catch (error) {
        this.#deps.logger.warn({ err: error, queue: name }, 'waking workers failed; they will find the job on their next poll');
      }
    }
    if (events.length > 0) await this.#deps.hub.publish(events);
    for (const fn of afters) {
      try {
        await fn();
      } catch (error) {
        this.#deps.logger.warn({ err: error }, 'an after-commit step failed');
      }
    }
    return result;
  }
}
