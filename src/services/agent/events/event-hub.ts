/**
 * Live agent events for this process's SSE readers (AGENT.md "Events"). Each conversation with
 * readers here has one subscription on the event bus (in-process in embedded mode, Redis pub/sub in
 * scale-out), whatever the number of its readers, and each event is serialised once for all of them.
 *
 * The bus is never the source of truth: the hub delivers every conversation's events in sequence
 * order without gaps. A message that skips sequences (one lost on the bus, or published out of order
 * by two processes) makes the hub read the missing ones from the store first; and every few seconds
 * it compares what it delivered with the store's last sequence, so an event whose publisher died
 * between commit and publish still arrives.
 */
import type { Logger } from 'pino';
import type { AgentEvent } from '../../../domain/agent/agent-events.ts';
import type { AgentStore } from '../../../ports/agent-store.port.ts';
import type { EventBus } from '../../../ports/event-bus.port.ts';
import type { UnitOfWork } from '../../../ports/unit-of-work.port.ts';
import { eventFromRow, sseFrame } from './event-records.ts';

export interface EventListener {
  /** In sequence order, each event once; `frame` is the event's SSE frame, shared by every reader. */
  onEvent(event: AgentEvent, frame: string): void;
  /** The conversation was deleted: nothing more will come. */
  onClose(reason: string): void;
}

interface Channel {
  listeners: Set<EventListener>;
  /** The highest sequence delivered to the listeners (events up to it reached them or their replay). */
  lastSequence: number;
  /** Serialises deliveries and gap fills of this conversation. */
  chain: Promise<void>;
  unsubscribe: (() => Promise<void>) | undefined;
  /** Resolves once the bus subscription is live and lastSequence is known. */
  ready: Promise<void>;
}

type BusMessage = { event: AgentEvent } | { closed: string };

const TOPIC = 'agent.events.';
const PAGE = 500;
const UNRELIABLE_CHECK_MS = 500;

export class AgentEventHub {
  readonly #bus: EventBus;
  readonly #store: AgentStore;
  readonly #uow: UnitOfWork;
  readonly #logger: Logger;
  readonly #channels = new Map<string, Channel>();
  #timer: NodeJS.Timeout | undefined;
  readonly #checkIntervalMs: number;

  constructor(deps: { bus: EventBus; store: AgentStore; uow: UnitOfWork; logger: Logger; checkIntervalMs?: number }) {
    this.#bus = deps.bus;
    this.#store = deps.store;
    this.#uow = deps.uow;
    this.#logger = deps.logger;
    this.#checkIntervalMs = deps.checkIntervalMs ?? 5_000;
  }

  /** After the transaction that stored them committed. Never throws: readers catch up from the store. */
  async publish(events: AgentEvent[]): Promise<void> {
    for (const event of events) {
      try {
        await this.#bus.publish(TOPIC + event.conversationId, JSON.stringify({ event } satisfies BusMessage));
      } catch (error) {
        this.#logger.warn({ err: error, conversationId: event.conversationId }, 'publishing an agent event failed; readers will read it from the store');
      }
    }
  }

  async publishClosed(conversationId: string, reason: string): Promise<void> {
    try {
      await this.#bus.publish(TOPIC + conversationId, JSON.stringify({ closed: reason } satisfies BusMessage));
    } catch (error) {
      this.#logger.warn({ err: error, conversationId }, 'publishing a conversation close failed');
    }
  }

  /**
   * Adds a reader. Resolves once live delivery is set up: every event committed after that is
   * delivered; the reader replays what came before from the store (and ignores sequences it has).
   */
  async subscribe(conversationId: string, listener: EventListener): Promise<() => void> {
    let channel = this.#channels.get(conversationId);
    if (!channel) {
      channel = this.#open(conversationId);
      this.#channels.set(conversationId, channel);
      this.#startTimer();
    }
    channel.listeners.add(listener);
    await channel.ready;
    const own = channel;
    return () => {
      own.listeners.delete(listener);
      if (own.listeners.size === 0 && this.#channels.get(conversationId) === own) {
        this.#channels.delete(conversationId);
        void own.ready.then(() => own.unsubscribe?.()).catch(() => {});
        if (this.#channels.size === 0) this.#stopTimer();
      }
    };
  }

  get readers(): number {
    let n = 0;
    for (const channel of this.#channels.values()) n += channel.listeners.size;
    return n;
  }

  async close(): Promise<void> {
    this.#stopTimer();
    const channels = [...this.#channels.values()];
    this.#channels.clear();
    for (const channel of channels) await channel.unsubscribe?.().catch(() => {});
  }

  #open(conversationId: string): Channel {
    const channel: Channel = { listeners: new Set(), lastSequence: 0, chain: Promise.resolve(), unsubscribe: undefined, ready: Promise.resolve() };
    channel.ready = (async () => {
      channel.unsubscribe = await this.#bus.subscribe(TOPIC + conversationId, (payload) => this.#onMessage(conversationId, channel, payload));
      channel.lastSequence = Math.max(channel.lastSequence, await this.#store.lastEventSequence(this.#uow.direct, conversationId));
    })();
    return channel;
  }

  #onMessage(conversationId: string, channel: Channel, payload: string): void {
    let message: BusMessage;
    try {
      message = JSON.parse(payload) as BusMessage;
    } catch {
      return;
    }
    channel.chain = channel.chain.then(async () => {
      await channel.ready;
      if ('closed' in message) {
        for (const listener of [...channel.listeners]) listener.onClose(message.closed);
        return;
      }
      const event = message.event;
      if (event.sequence <= channel.lastSequence) return;
      if (event.sequence > channel.lastSequence + 1) await this.#fill(conversationId, channel, event.sequence - 1);
      if (event.sequence === channel.lastSequence + 1) this.#deliver(channel, event);
    }).catch((error: unknown) => this.#logger.warn({ err: error, conversationId }, 'delivering agent events failed'));
  }

  /** Delivers the stored events after lastSequence up to `through` (all of them when undefined). */
  async #fill(conversationId: string, channel: Channel, through?: number): Promise<void> {
    for (;;) {
      const rows = await this.#store.listEventsAfter(this.#uow.direct, conversationId, channel.lastSequence, PAGE);
      for (const row of rows) {
        if (through !== undefined && Number(row.sequence) > through) return;
        const event = eventFromRow(row);
        // A sequence missing from the store (removed by retention) is skipped, not waited for.
        if (event.sequence > channel.lastSequence) this.#deliver(channel, event);
      }
      if (rows.length < PAGE) return;
    }
  }

  #deliver(channel: Channel, event: AgentEvent): void {
    channel.lastSequence = event.sequence;
    const frame = sseFrame(event);
    for (const listener of channel.listeners) {
      try {
        listener.onEvent(event, frame);
      } catch (error) {
        this.#logger.warn({ err: error }, 'an agent event reader failed');
      }
    }
  }

  /** Catches up conversations whose store is ahead of what was delivered (a publish that never came). */
  async #check(): Promise<void> {
    const ids = [...this.#channels.keys()];
    for (let at = 0; at < ids.length; at += 500) {
      const batch = ids.slice(at, at + 500);
      let rows: Array<{ id: string; event_seq: number }>;
      try {
        rows = await this.#store.lastEventSequences(this.#uow.direct, batch);
      } catch (error) {
        this.#logger.warn({ err: error }, 'checking agent event sequences failed');
        return;
      }
      for (const row of rows) {
        const channel = this.#channels.get(row.id);
        if (!channel || Number(row.event_seq) <= channel.lastSequence) continue;
        channel.chain = channel.chain
          .then(() => this.#fill(row.id, channel))
          .catch((error: unknown) => this.#logger.warn({ err: error, conversationId: row.id }, 'catching up agent events failed'));
      }
    }
  }

  /** Every few seconds, or twice a second while the bus may be losing messages (Redis down): then the store is the feed. */
  #startTimer(): void {
    if (this.#timer) return;
    const interval = this.#bus.reliable() ? this.#checkIntervalMs : Math.min(this.#checkIntervalMs, UNRELIABLE_CHECK_MS);
    const timer = setTimeout(() => {
      void this.#check().finally(() => {
        if (this.#timer !== timer) return; // stopped (and perhaps restarted) meanwhile
        this.#timer = undefined;
        if (this.#channels.size > 0) this.#startTimer();
      });
    }, interval);
    timer.unref();
    this.#timer = timer;
  }

  #stopTimer(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
