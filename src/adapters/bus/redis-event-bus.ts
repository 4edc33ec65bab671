import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import type { EventBus, EventHandler } from '../../ports/event-bus.port.ts';
import { CircuitBreaker } from '../resilience/circuit-breaker.ts';

export interface RedisEventBusOptions {
  prefix?: string;
  logger?: Logger;
  /** A publish waits at most this long for Redis (default 250 ms). */
  commandTimeoutMs?: number;
  /** After a failed publish, publishes are skipped this long, then one probes (default 2 s). */
  openMs?: number;
  /** A subscription not live after this long resolves anyway and goes live when Redis answers (default 250 ms). */
  subscribeWaitMs?: number;
  /** Messages are taken as possibly lost until the subscriber has been back this long (default 10 s). */
  settleMs?: number;
}

/** Reconnect quickly at first, then every 2 s, for ever: the bus is a helper that comes back by itself. */
const reconnectDelay = (attempt: number) => Math.min(50 * 2 ** attempt, 2_000);

/**
 * Scale-out mode: Redis pub/sub. One connection publishes, one subscribes (a subscribed Redis
 * connection can do nothing else); handlers are multiplexed per topic in this process.
 *
 * Redis carries hints only (wake-ups, cache invalidations, live events whose truth is in the store), so
 * it must never slow a request down or fail one (issue 17): a publish never throws and waits at most
 * `commandTimeoutMs`; with Redis down the publisher queues nothing and a circuit breaker skips it at
 * once; a subscription resolves after a short wait even when Redis is away and is made live when it
 * returns. `reliable()` tells readers when they must poll the store instead of trusting silence.
 */
export class RedisEventBus implements EventBus {
  private readonly publisher: Redis;
  private readonly subscriber: Redis;
  private readonly handlers = new Map<string, Set<EventHandler>>();
  private readonly prefix: string;
  private readonly breaker: CircuitBreaker;
  private readonly logger: Logger | undefined;
  private readonly subscribeWaitMs: number;
  private readonly settleMs: number;
  /** When the subscriber last became ready; undefined while it is not. */
  private subscriberReadyAt: number | undefined;
  private everReady = false;
  private dropped = 0;
  private closed = false;

  constructor(url: string, options: RedisEventBusOptions = {}) {
    this.prefix = options.prefix ?? 'switchboard:';
    this.logger = options.logger;
    this.subscribeWaitMs = options.subscribeWaitMs ?? 250;
    this.settleMs = options.settleMs ?? 10_000;
    const common: RedisOptions = { lazyConnect: false, retryStrategy: reconnectDelay, connectTimeout: 2_000 };
    this.publisher = new Redis(url, { ...common, enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: options.commandTimeoutMs ?? 250 });
    // The subscriber queues SUBSCRIBE while disconnected and re-subscribes every channel on reconnect.
    this.subscriber = new Redis(url, { ...common, maxRetriesPerRequest: null, autoResubscribe: true });
    this.breaker = new CircuitBreaker({
      openMs: options.openMs ?? 2_000,
      onChange: (state) => {
        if (state === 'open') this.logger?.warn('Redis is not answering; wake-ups and live events fall back to polling the store');
        if (state === 'closed') {
          this.logger?.info({ dropped: this.dropped }, 'Redis answers again');
          this.dropped = 0;
        }
      },
    });
    this.subscriber.on('message', (channel: string, message: string) => {
      const set = this.handlers.get(channel);
      if (!set) return;
      for (const handler of [...set]) handler(message);
    });
    this.subscriber.on('ready', () => {
      // The first connection lost nothing; a reconnection may have missed messages while it was away.
      this.subscriberReadyAt = this.everReady ? Date.now() : 0;
      this.everReady = true;
    });
    this.subscriber.on('close', () => {
      this.subscriberReadyAt = undefined;
    });
    // Errors surface through failed commands and the breaker; an unhandled 'error' event would crash the process.
    this.publisher.on('error', () => {});
    this.subscriber.on('error', () => {});
  }

  async publish(topic: string, payload: string): Promise<void> {
    if (this.closed) return;
    const sendable = this.publisher.status === 'ready';
    if (!sendable || !this.breaker.allow()) {
      // Not connected: the breaker learns it without a call (ioredis would only refuse it).
      if (!sendable && this.breaker.state === 'closed') this.breaker.failed();
      this.dropped++;
      return;
    }
    try {
      await this.publisher.publish(this.prefix + topic, payload);
      this.breaker.succeeded();
    } catch {
      this.breaker.failed();
      this.dropped++;
    }
  }

  async subscribe(topic: string, handler: EventHandler): Promise<() => Promise<void>> {
    const channel = this.prefix + topic;
    let set = this.handlers.get(channel);
    if (!set) {
      set = new Set();
      this.handlers.set(channel, set);
      const live = this.subscriber.subscribe(channel).then(
        () => true,
        (error: unknown) => {
          this.logger?.warn({ err: error, channel }, 'subscribing on Redis failed; it is retried on reconnect');
          return false;
        },
      );
      await Promise.race([live, new Promise((resolve) => setTimeout(resolve, this.subscribeWaitMs).unref())]);
    }
    set.add(handler);
    return async () => {
      set.delete(handler);
      if (set.size === 0 && this.handlers.get(channel) === set) {
        this.handlers.delete(channel);
        // Not awaited beyond the short wait: an unsubscribe during an outage must not hold its caller.
        const done = this.subscriber.unsubscribe(channel).catch(() => {});
        await Promise.race([done, new Promise((resolve) => setTimeout(resolve, this.subscribeWaitMs).unref())]);
      }
    };
  }

  reliable(): boolean {
    if (this.breaker.state !== 'closed') return false;
    const readyAt = this.subscriberReadyAt;
    return readyAt !== undefined && Date.now() - readyAt >= this.settleMs;
  }

  /** Throws when Redis does not answer a PING within the command time-out (for /readyz, as a warning). */
  async ping(): Promise<void> {
    await this.publisher.ping();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.handlers.clear();
    this.publisher.disconnect();
    this.subscriber.disconnect();
  }
}
