/**
 * A small OpenTelemetry collector for tests: an HTTP server on 127.0.0.1 that takes OTLP/HTTP JSON
 * exports at POST /v1/traces (the ExportTraceServiceRequest of the OTLP specification, optionally
 * gzip-compressed), keeps the raw bodies (to search the whole payload for what must not be there)
 * and the spans, each with the resource attributes of the process that sent it.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

export type OtlpValue = string | number | boolean | undefined;

export interface CollectedSpan {
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  /** 1 internal, 2 server, 3 client (the OTLP SpanKind numbers). */
  kind: number;
  attributes: Record<string, OtlpValue>;
  resource: Record<string, OtlpValue>;
}

export interface OtlpCollector {
  /** What OTEL_EXPORTER_OTLP_ENDPOINT is set to (the exporter appends /v1/traces). */
  url: string;
  spans(): CollectedSpan[];
  /** Every export body as received (decompressed), to search for text that must never be exported. */
  payloads(): string[];
  /** Waits until a span matches (spans come in batches, a little after they end). */
  waitFor(what: string, match: (span: CollectedSpan) => boolean, timeoutMs?: number): Promise<CollectedSpan>;
  close(): Promise<void>;
}

interface OtlpKeyValue {
  key: string;
  value?: { stringValue?: string; intValue?: number | string; doubleValue?: number; boolValue?: boolean };
}

interface OtlpExport {
  resourceSpans?: Array<{
    resource?: { attributes?: OtlpKeyValue[] };
    scopeSpans?: Array<{ spans?: Array<{ traceId: string; spanId: string; parentSpanId?: string; name: string; kind?: number; attributes?: OtlpKeyValue[] }> }>;
  }>;
}

/** An export is at most a batch of spans: bodies past this are refused, not buffered. */
const MAX_BODY_BYTES = 8 * 1024 * 1024;

export async function startOtlpCollector(): Promise<OtlpCollector> {
  const spans: CollectedSpan[] = [];
  const payloads: string[] = [];
  const server: Server = createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== '/v1/traces') {
      res.writeHead(404).end();
      return;
    }
    readBody(req).then(
      (body) => {
        const text = (req.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body).toString('utf8');
        if (!String(req.headers['content-type']).startsWith('application/json')) {
          res.writeHead(415, { 'content-type': 'application/json' }).end(JSON.stringify({ code: 3, message: 'this collector takes application/json only' }));
          return;
        }
        payloads.push(text);
        spans.push(...spansOf(JSON.parse(text) as OtlpExport));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      },
      (error: unknown) => res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ code: 3, message: String(error) })),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans: () => [...spans],
    payloads: () => [...payloads],
    async waitFor(what, match, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = spans.find(match);
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no span ${what} among ${spans.length}: ${[...new Set(spans.map((s) => s.name))].join(', ')}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) req.destroy(new Error('export body too large'));
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function spansOf(request: OtlpExport): CollectedSpan[] {
  return (request.resourceSpans ?? []).flatMap((rs) => {
    const resource = attributesOf(rs.resource?.attributes);
    return (rs.scopeSpans ?? []).flatMap((ss) =>
      (ss.spans ?? []).map((s) => ({
        traceId: s.traceId,
        spanId: s.spanId,
        parentSpanId: s.parentSpanId ?? '',
        name: s.name,
        kind: s.kind ?? 0,
        attributes: attributesOf(s.attributes),
        resource,
      })),
    );
  });
}

function attributesOf(list: OtlpKeyValue[] | undefined): Record<string, OtlpValue> {
  const out: Record<string, OtlpValue> = {};
  for (const { key, value } of list ?? []) {
    const v = value?.stringValue ?? value?.boolValue ?? value?.doubleValue ?? value?.intValue;
    // OTLP JSON may write a 64-bit integer as a string.
    out[key] = typeof value?.intValue === 'string' ? Number(value.intValue) : v;
  }
  return out;
}
