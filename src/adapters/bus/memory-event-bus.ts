import type { EventBus, EventHandler } from '../../ports/event-bus.port.ts';

/** Embedded mode: one process, so fan-out is a map of handlers. Delivery is asynchronous, like Redis. */
export class MemoryEventBus implements EventBus {
  private readonly handlers = new Map<string, Set<EventHandler>>();

  async publish(topic: string, payload: string): Promise<void> {
    const set = this.handlers.get(topic);
    if (!set) return;
    for (const handler of [...set]) queueMicrotask(() => handler(payload));
  }

  async subscribe(topic: string, handler: EventHandler): Promise<() => Promise<void>> {
    let set = this.handlers.get(topic);
    if (!set) {
      set = new Set();
      this.handlers.set(topic, set);
    }
    set.add(handler);
    return async () => {
      set.delete(handler);
      if (set.size === 0 && this.handlers.get(topic) === set) this.handlers.delete(topic);
    };
  }

  /** In one process nothing is lost. */
  reliable(): boolean {
    return true;
  }

  async close(): Promise<void> {
    this.handlers.clear();
  }
}
