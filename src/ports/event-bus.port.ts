/**
 * Fire-and-forget fan-out between processes: cache invalidation, queue wake-ups, events for the
 * process that holds an SSE connection. Never the source of truth: a lost message only delays.
 */
export type EventHandler = (payload: string) => void;

export interface EventBus {
  publish(topic: string, payload: string): Promise<void>;
  /** Resolves once the subscription is live; the returned function unsubscribes. */
  subscribe(topic: string, handler: EventHandler): Promise<() => Promise<void>>;
  close(): Promise<void>;
}
