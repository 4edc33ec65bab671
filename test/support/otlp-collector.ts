/**
 * A small OpenTelemetry collector for tests: an HTTP server on 127.0.0.1 that takes OTLP/HTTP exports
 * at POST /v1/traces (the ExportTraceServiceRequest of the OTLP specification, as JSON or protobuf by
 * content-type, optionally gzip-compressed), keeps the raw bodies (to search the whole payload for
 * what must not be there) and the spans, each with the resource attributes of the process that sent
 * it. Both encodings end in the same spans. A body it cannot decode is refused (400), as a real
 * collector's is, and the answer is in the request's encoding.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import type { OtlpAnyValue, OtlpExport, OtlpKeyValue } from './otlp-export.ts';
import { decodeExportTraceServiceRequest, EMPTY_EXPORT_RESPONSE, encodeInvalidArgument } from './otlp-protobuf.ts';

export type OtlpValue = string | number | boolean | undefined | OtlpValue[];

export interface CollectedSpan {
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  /** 1 internal, 2 server, 3 client (the OTLP SpanKind numbers). */
  kind: number;
  /** Nanoseconds since the epoch (0n when absent). */
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  /** 0 unset, 1 ok, 2 error; the message only with an error. */
  status: { code: number; message: string };
  attributes: Record<string, OtlpValue>;
  resource: Record<string, OtlpValue>;
}

export interface OtlpCollector {
  /** What OTEL_EXPORTER_OTLP_ENDPOINT is set to (the exporter appends /v1/traces). */
  url: string;
  spans(): CollectedSpan[];
  /**
   * Every export body as received (decompressed) as UTF-8 text, to search for text that must never be
   * exported: protobuf carries strings as their UTF-8 bytes, so a search finds them in either encoding.
   */
  payloads(): string[];
  /** The encoding of each export received, in order (application/json or application/x-protobuf). */
  encodings(): string[];
  /** Waits until a span matches (spans come in batches, a little after they end). */
  waitFor(what: string, match: (span: CollectedSpan) => boolean, timeoutMs?: number): Promise<CollectedSpan>;
  close(): Promise<void>;
}

const JSON_TYPE = 'application/json';
const PROTOBUF_TYPE = 'application/x-protobuf';

/** An export is at most a batch of spans: bodies past this are refused, not buffered. */
const MAX_BODY_BYTES = 8 * 1024 * 1024;

export async function startOtlpCollector(): Promise<OtlpCollector> {
  const spans: CollectedSpan[] = [];
  const payloads: string[] = [];
  const encodings: string[] = [];
  const server: Server = createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== '/v1/traces') {
      res.writeHead(404).end();
      return;
    }
    const type = String(req.headers['content-type']).split(';')[0]?.trim().toLowerCase();
    const encoding = type === PROTOBUF_TYPE ? PROTOBUF_TYPE : JSON_TYPE;
    if (type !== JSON_TYPE && type !== PROTOBUF_TYPE) {
      refuse(res, encoding, 415, `this collector takes ${JSON_TYPE} or ${PROTOBUF_TYPE}, got ${type}`);
      return;
    }
    readBody(req).then(
      (raw) => {
        let body: Buffer;
        let received: CollectedSpan[];
        try {
          body = req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
          received = spansOf(encoding === PROTOBUF_TYPE ? decodeExportTraceServiceRequest(body) : (JSON.parse(body.toString('utf8')) as OtlpExport));
        } catch (error) {
          refuse(res, encoding, 400, `cannot decode the export: ${String(error)}`);
          return;
        }
        payloads.push(body.toString('utf8'));
        encodings.push(encoding);
        spans.push(...received);
        if (encoding === PROTOBUF_TYPE) res.writeHead(200, { 'content-type': PROTOBUF_TYPE }).end(EMPTY_EXPORT_RESPONSE);
        else res.writeHead(200, { 'content-type': JSON_TYPE }).end('{}');
      },
      (error: unknown) => refuse(res, encoding, 400, String(error)),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans: () => [...spans],
    payloads: () => [...payloads],
    encodings: () => [...encodings],
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

/** A refusal as an OTLP/HTTP receiver writes it: a google.rpc.Status, code 3 (INVALID_ARGUMENT), in the request's encoding. */
function refuse(res: ServerResponse, encoding: string, status: number, message: string): void {
  if (encoding === PROTOBUF_TYPE) res.writeHead(status, { 'content-type': PROTOBUF_TYPE }).end(encodeInvalidArgument(message));
  else res.writeHead(status, { 'content-type': JSON_TYPE }).end(JSON.stringify({ code: 3, message }));
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
        startTimeUnixNano: BigInt(s.startTimeUnixNano ?? 0),
        endTimeUnixNano: BigInt(s.endTimeUnixNano ?? 0),
        status: { code: s.status?.code ?? 0, message: s.status?.message ?? '' },
        attributes: attributesOf(s.attributes),
        resource,
      })),
    );
  });
}

function attributesOf(list: OtlpKeyValue[] | undefined): Record<string, OtlpValue> {
  const out: Record<string, OtlpValue> = {};
  for (const { key, value } of list ?? []) out[key] = attributeValue(value);
  return out;
}

function attributeValue(value: OtlpAnyValue | undefined): OtlpValue {
  // OTLP JSON may write a 64-bit integer as a string.
  if (value?.intValue !== undefined) return Number(value.intValue);
  if (value?.arrayValue) return (value.arrayValue.values ?? []).map(attributeValue);
  return value?.stringValue ?? value?.boolValue ?? value?.doubleValue;
}
