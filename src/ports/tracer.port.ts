/**
 * Tracing (issue 22, item 3): spans for requests, upstream calls and jobs, and the trace context a job
 * carries from the process that enqueued it to the one that runs it. Off by default: the no-op tracer
 * below is what runs then, so a span on the hot path costs one call that does nothing. The
 * OpenTelemetry adapter (src/adapters/tracing/otel-tracer.ts) is built when the OTEL_* settings ask.
 */

export type SpanAttributes = Record<string, string | number | boolean | undefined>;

export interface SpanOptions {
  /** `server` for a request we answer, `client` for a call we make, `internal` (the default) otherwise. */
  kind?: 'server' | 'client' | 'internal';
  /**
   * A trace context string (from `Tracer.currentContext` in another process): the span continues that
   * trace. null: the span starts a trace of its own. Absent: the span is a child of the active one.
   */
  parent?: string | null;
}

export interface Span {
  setAttributes(attributes: SpanAttributes): void;
  /** Marks the span failed with the error's kind and message (never its cause chain's data). */
  recordError(error: unknown): void;
  /** Idempotent: a second end does nothing. */
  end(): void;
}

export interface Tracer {
  /** False for the no-op tracer: callers skip building attributes nobody reads. */
  readonly enabled: boolean;
  /** Whether prompt text may go into spans (SWITCHBOARD_TRACE_CONTENT=1); API keys never do. */
  readonly recordContent: boolean;
  startSpan(name: string, attributes?: SpanAttributes, options?: SpanOptions): Span;
  /** Runs `fn` with `span` as the active span, so spans started and jobs enqueued inside belong to its trace. */
  withSpan<T>(span: Span, fn: () => T): T;
  /** The active trace context as a string (W3C traceparent), to store with a job; undefined when none. */
  currentContext(): string | undefined;
  /** Sends what is buffered; called at shutdown. */
  shutdown(): Promise<void>;
}

/** The span of the no-op tracer: callers on the hot path return it instead of building attributes. */
export const NOOP_SPAN: Span = {
  setAttributes: () => {},
  recordError: () => {},
  end: () => {},
};

/** Tracing off: every call returns at once. */
export const NOOP_TRACER: Tracer = {
  enabled: false,
  recordContent: false,
  startSpan: () => NOOP_SPAN,
  withSpan: (_span, fn) => fn(),
  currentContext: () => undefined,
  shutdown: async () => {},
};
