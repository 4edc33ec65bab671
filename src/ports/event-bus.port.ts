/**
 * Fire-and-forget fan-out between processes: cache invalidation, queue wake-ups, events for the
 * process that holds an SSE connection. Never the source of truth: a lost message only delays, and
 * every reader has a way to find what it missed in the store.
 */
export type EventHandler = (payload: string) => void;

export interface EventBus {
  /**
   * Never throws and never waits long: a message that cannot be sent now (the bus is down or slow) is
   * dropped, so a caller may publish after its transaction committed without risking its answer.
   */
  publish(topic: string, payload: string): Promise<void>;
  /**
   * Resolves once the subscription is live, or after a short wait when the bus is away (it becomes
   * live when the bus returns); the returned function unsubscribes.
   */
  subscribe(topic: string, handler: EventHandler): Promise<() => Promise<void>>;
  /**
   * False while messages may be lost (the bus is down, or came back only moments ago): readers that
   * rely on messages should poll the store meanwhile instead of trusting silence.
   */
  reliable(): boolean;
  close(): Promise<void>;
}
