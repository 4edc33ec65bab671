import { Redis } from 'ioredis';
import type { EventBus, EventHandler } from '../../ports/event-bus.port.ts';

/**
 * Scale-out mode: Redis pub/sub. One connection publishes, one subscribes (a subscribed Redis
 * connection can do nothing else); handlers are multiplexed per topic in this process.
 */
export class RedisEventBus implements EventBus {
  private readonly publisher: Redis;
  private readonly subscriber: Redis;
  private readonly handlers = new Map<string, Set<EventHandler>>();
  private readonly prefix: string;

  constructor(url: string, prefix = 'switchboard:') {
    this.prefix = prefix;
    this.publisher = new Redis(url, { maxRetriesPerRequest: 2, lazyConnect: false });
    this.subscriber = new Redis(url, { maxRetriesPerRequest: null, lazyConnect: false });
    this.subscriber.on('message', (channel: string, message: string) => {
      const set = this.handlers.get(channel);
      if (!set) return;
      for (const handler of [...set]) handler(message);
    });
    // Errors surface through failed commands; an unhandled 'error' event would crash the process.
    this.publisher.on('error', () => {});
    this.subscriber.on('error', () => {});
  }

  async publish(topic: string, payload: string): Promise<void> {
    await this.publisher.publish(this.prefix + topic, payload);
  }

  async subscribe(topic: string, handler: EventHandler): Promise<() => Promise<void>> {
    const channel = this.prefix + topic;
    let set = this.handlers.get(channel);
    if (!set) {
      set = new Set();
      this.handlers.set(channel, set);
      await this.subscriber.subscribe(channel);
    }
    set.add(handler);
    return async () => {
      set.delete(handler);
      if (set.size === 0 && this.handlers.get(channel) === set) {
        this.handlers.delete(channel);
        await this.subscriber.unsubscribe(channel);
      }
    };
  }

  async ping(): Promise<void> {
    await this.publisher.ping();
  }

  async close(): Promise<void> {
    this.handlers.clear();
    this.publisher.disconnect();
    this.subscriber.disconnect();
  }
}
