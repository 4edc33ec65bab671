/**
 * The tracing port on the OpenTelemetry SDK: spans go to the exporter the standard OTEL_* variables
 * name (OTLP over HTTP, protobuf or JSON; its endpoint, headers and timeouts are the exporter's own OTEL_*
 * reading), batched so the hot path never waits on the network. Tests hand in an in-memory exporter,
 * exported span by span.
 */
import { randomUUID } from 'node:crypto';
import { type Context, context, propagation, ROOT_CONTEXT, type Span as OtelSpan, SpanKind, SpanStatusCode, trace, type Tracer as ApiTracer } from '@opentelemetry/api';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { defaultResource, detectResources, envDetector, type Resource, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, ConsoleSpanExporter, NodeTracerProvider, SimpleSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_INSTANCE_ID, ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { OtlpProtocol } from '../../config/tracing-config.ts';
import type { Span, SpanAttributes, SpanOptions, Tracer } from '../../ports/tracer.port.ts';

export interface OtelTracerOptions {
  /** Where spans go: `otlp` (OTEL_EXPORTER_OTLP_*), `console`, or an exporter (tests). */
  exporter: 'otlp' | 'console' | SpanExporter;
  /** The encoding `otlp` sends: http/protobuf unless given. */
  protocol?: OtlpProtocol;
  serviceName: string;
  recordContent: boolean;
  /** What this process does (api, worker or all), as `switchboard.role`: processes of one deployment told apart. */
  role?: string;
}

const KINDS = { server: SpanKind.SERVER, client: SpanKind.CLIENT, internal: SpanKind.INTERNAL } as const;

class OtelSpanHandle implements Span {
  readonly span: OtelSpan;
  #ended = false;

  constructor(span: OtelSpan) {
    this.span = span;
  }

  setAttributes(attributes: SpanAttributes): void {
    this.span.setAttributes(attributes);
  }

  recordError(error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    this.span.setStatus({ code: SpanStatusCode.ERROR, message });
    this.span.setAttribute('error.type', error instanceof Error ? error.name : typeof error);
  }

  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.span.end();
  }
}

export class OtelTracer implements Tracer {
  readonly enabled = true;
  readonly recordContent: boolean;
  readonly #provider: NodeTracerProvider;
  readonly #tracer: ApiTracer;

  constructor(options: OtelTracerOptions) {
    this.recordContent = options.recordContent;
    const exporter = options.exporter === 'otlp' ? otlpExporter(options.protocol ?? 'http/protobuf') : options.exporter === 'console' ? new ConsoleSpanExporter() : options.exporter;
    const processor = typeof options.exporter === 'string' ? new BatchSpanProcessor(exporter) : new SimpleSpanProcessor(exporter);
    this.#provider = new NodeTracerProvider({ resource: processResource(options), spanProcessors: [processor] });
    // The context manager (AsyncLocalStorage) and the W3C propagator are process-wide; a second
    // tracer in the same process (tests) finds them set, which is as good.
    this.#provider.register();
    this.#tracer = this.#provider.getTracer('switchboard');
  }

  startSpan(name: string, attributes?: SpanAttributes, options?: SpanOptions): Span {
    // null: a trace of its own, never whatever happens to be active (a job pumped from inside a request).
    const parent = options?.parent ? extract(options.parent) : options?.parent === null ? ROOT_CONTEXT : context.active();
    return new OtelSpanHandle(this.#tracer.startSpan(name, { kind: KINDS[options?.kind ?? 'internal'], ...(attributes ? { attributes } : {}) }, parent));
  }

  withSpan<T>(span: Span, fn: () => T): T {
    if (!(span instanceof OtelSpanHandle)) return fn();
    return context.with(trace.setSpan(context.active(), span.span), fn);
  }

  currentContext(): string | undefined {
    const carrier: Record<string, string> = {};
    propagation.inject(context.active(), carrier);
    return carrier.traceparent;
  }

  async shutdown(): Promise<void> {
    await this.#provider.shutdown();
  }
}

function otlpExporter(protocol: OtlpProtocol): SpanExporter {
  return protocol === 'http/json' ? new OtlpJsonExporter() : new OtlpProtobufExporter();
}

function extract(traceparent: string): Context {
  // On the root context: the stored trace is the parent, not the span that happens to be active.
  return propagation.extract(ROOT_CONTEXT, { traceparent });
}

/**
 * The SDK's defaults (telemetry.sdk.*), then ours, then OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME,
 * which win: an operator's own instance id or service name is kept.
 */
function processResource(options: OtelTracerOptions): Resource {
  const ours = resourceFromAttributes({
    [ATTR_SERVICE_NAME]: options.serviceName,
    // A fresh UUID per process, as the semantic conventions suggest: a restart is a new instance.
    [ATTR_SERVICE_INSTANCE_ID]: randomUUID(),
    ...(options.role ? { 'switchboard.role': options.role } : {}),
  });
  return defaultResource().merge(ours).merge(detectResources({ detectors: [envDetector] }));
}
