/**
 * The test collector (test/support/otlp-collector.ts) against the two OTLP exporters Switchboard
 * ships: the same spans sent as JSON and as protobuf come out the same, with every field the
 * assertions read (ids, parent, kind, times, status, attributes of each type, the resource); a body
 * it cannot decode is refused with a 400, and a protobuf export is answered in protobuf.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { InMemorySpanExporter, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { OtelTracer } from '../../src/adapters/tracing/otel-tracer.ts';
import { type CollectedSpan, startOtlpCollector } from '../support/otlp-collector.ts';
import { decodeExportTraceServiceRequest } from '../support/otlp-protobuf.ts';
import { readFields } from '../support/protobuf-wire.ts';

const jsonCollector = await startOtlpCollector();
const protobufCollector = await startOtlpCollector();
after(() => Promise.all([jsonCollector.close(), protobufCollector.close()]));

/** An attribute of every type an attribute may have: text beyond ASCII, integers of both signs and past 32 bits, a fraction, a boolean. */
const CHILD_ATTRIBUTES = {
  'gen_ai.request.model': 'some-model ünïcode',
  'gen_ai.usage.input_tokens': 1234,
  'switchboard.balance_delta': -5,
  'switchboard.big': 2 ** 40,
  'switchboard.ratio': 0.25,
  'switchboard.cached': true,
};

/** Two spans, parent and child, with an attribute of every type an attribute may have and an error status. */
async function someSpans(): Promise<ReadableSpan[]> {
  const memory = new InMemorySpanExporter();
  const tracer = new OtelTracer({ exporter: memory, serviceName: 'collector-test', recordContent: false, role: 'all' });
  const parent = tracer.startSpan('POST /v1/things', { 'http.route': '/v1/things' }, { kind: 'server', parent: null });
  tracer.withSpan(parent, () => {
    const child = tracer.startSpan('chat some-model', CHILD_ATTRIBUTES, { kind: 'client' });
    child.recordError(new TypeError('upstream said no'));
    child.end();
  });
  parent.end();
  // Before the shutdown, which empties the in-memory exporter.
  const spans = memory.getFinishedSpans();
  await tracer.shutdown();
  return spans;
}

async function send(exporter: SpanExporter, spans: ReadableSpan[]): Promise<void> {
  const result = await new Promise<{ code: number; error?: Error }>((resolve) => exporter.export(spans, resolve));
  assert.equal(result.code, 0, `ExportResultCode.SUCCESS, not ${String(result.error)}`);
  await exporter.shutdown();
}

const byName = (spans: CollectedSpan[]) => [...spans].sort((a, b) => a.name.localeCompare(b.name));

test('the same spans as JSON and as protobuf come out of the collector the same', async () => {
  const spans = await someSpans();
  await send(new OtlpJsonExporter({ url: `${jsonCollector.url}/v1/traces` }), spans);
  await send(new OtlpProtobufExporter({ url: `${protobufCollector.url}/v1/traces` }), spans);
  assert.deepEqual(jsonCollector.encodings(), ['application/json']);
  assert.deepEqual(protobufCollector.encodings(), ['application/x-protobuf']);

  const fromProtobuf = byName(protobufCollector.spans());
  assert.deepEqual(fromProtobuf, byName(jsonCollector.spans()));

  const [child, parent] = fromProtobuf;
  assert.ok(child && parent);
  const sent = (name: string) => spans.find((s) => s.name === name);
  const sentChild = sent('chat some-model');
  assert.ok(sentChild);
  assert.equal(child.traceId, sentChild.spanContext().traceId);
  assert.equal(child.spanId, sentChild.spanContext().spanId);
  assert.equal(child.parentSpanId, parent.spanId);
  assert.equal(parent.parentSpanId, '');
  assert.equal(parent.traceId, child.traceId);
  assert.equal(parent.kind, 2);
  assert.equal(child.kind, 3);
  // fixed64 nanoseconds, to the nanosecond (past 2^53: a double would lose the last digits).
  const nanos = ([seconds, ns]: [number, number]) => BigInt(seconds) * 1_000_000_000n + BigInt(ns);
  assert.equal(child.startTimeUnixNano, nanos(sentChild.startTime));
  assert.equal(child.endTimeUnixNano, nanos(sentChild.endTime));
  assert.ok(child.endTimeUnixNano >= child.startTimeUnixNano);
  assert.deepEqual(child.status, { code: 2, message: 'upstream said no' });
  assert.deepEqual(parent.status, { code: 0, message: '' });
  assert.deepEqual(child.attributes, { ...CHILD_ATTRIBUTES, 'error.type': 'TypeError' });
  assert.equal(child.resource['service.name'], 'collector-test');
  assert.equal(child.resource['switchboard.role'], 'all');
  assert.equal(child.resource['telemetry.sdk.language'], 'nodejs');
  // Strings travel as their UTF-8 bytes: the payload search finds them in protobuf too.
  assert.ok(protobufCollector.payloads().join('\n').includes('some-model ünïcode'));
});

test('a gzip-compressed protobuf export is read', async () => {
  const spans = await someSpans();
  const collector = await startOtlpCollector();
  // The exporter reads its compression from the environment when it is made (its option is an enum of a package we do not depend on).
  process.env.OTEL_EXPORTER_OTLP_TRACES_COMPRESSION = 'gzip';
  try {
    const exporter = new OtlpProtobufExporter({ url: `${collector.url}/v1/traces` });
    delete process.env.OTEL_EXPORTER_OTLP_TRACES_COMPRESSION;
    await send(exporter, spans);
    assert.deepEqual(collector.spans().map((s) => s.name).sort(), ['POST /v1/things', 'chat some-model']);
  } finally {
    delete process.env.OTEL_EXPORTER_OTLP_TRACES_COMPRESSION;
    await collector.close();
  }
});

test('the collector refuses what it cannot decode, and answers protobuf in protobuf', async () => {
  const post = (body: Uint8Array<ArrayBuffer> | string, type: string, headers: Record<string, string> = {}) =>
    fetch(`${protobufCollector.url}/v1/traces`, { method: 'POST', headers: { 'content-type': type, ...headers }, body });
  const before = protobufCollector.spans().length;

  const empty = await post(new Uint8Array(0), 'application/x-protobuf');
  assert.equal(empty.status, 200);
  assert.equal(empty.headers.get('content-type'), 'application/x-protobuf');
  assert.equal((await empty.arrayBuffer()).byteLength, 0, 'an empty ExportTraceServiceResponse');

  // resource_spans (field 1, length-delimited) says 5 bytes; one follows.
  const truncated = await post(new Uint8Array([0x0a, 0x05, 0x01]), 'application/x-protobuf');
  assert.equal(truncated.status, 400);
  assert.equal(truncated.headers.get('content-type'), 'application/x-protobuf');
  const status = readFields(Buffer.from(await truncated.arrayBuffer()));
  assert.deepEqual(status[0], { field: 1, wire: 'varint', value: 3n }, 'google.rpc.Status code INVALID_ARGUMENT');

  // A resource_spans whose span's name (field 5) has wire type varint: the wrong type for a string.
  const span = [0x28, 0x01];
  const scopeSpans = [0x12, span.length, ...span];
  const resourceSpans = [0x12, scopeSpans.length, ...scopeSpans];
  const wrongType = await post(new Uint8Array([0x0a, resourceSpans.length, ...resourceSpans]), 'application/x-protobuf');
  assert.equal(wrongType.status, 400);

  const json = await post('{"resourceSpans": [', 'application/json');
  assert.equal(json.status, 400);
  assert.equal(json.headers.get('content-type'), 'application/json');
  const badGzip = await post(new Uint8Array([1, 2, 3]), 'application/x-protobuf', { 'content-encoding': 'gzip' });
  assert.equal(badGzip.status, 400);
  assert.equal((await post('spans', 'text/plain')).status, 415);
  assert.equal(protobufCollector.spans().length, before, 'nothing refused was kept');
  assert.equal((await post(gzipSync(Buffer.alloc(0)), 'application/x-protobuf', { 'content-encoding': 'gzip' })).status, 200);
});

test('the protobuf decoder: multi-byte varints, negative int64, unknown fields skipped, malformed bodies thrown', () => {
  // KeyValue { key: "n", value: AnyValue { array_value: [int_value: -1, string_value: "x"] } }: -1 is ten bytes of two's complement.
  const minusOne = [0x18, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
  const x = [0x0a, 1, 0x78];
  const array = [0x0a, minusOne.length, ...minusOne, 0x0a, x.length, ...x];
  const anyValue = [0x2a, array.length, ...array];
  const keyValue = [0x0a, 1, 0x6e, 0x12, anyValue.length, ...anyValue];
  // Span { name: "s" (5), kind: 3 (6), attributes (9), an unknown field 99 (varint 300: two bytes) }
  const span = [0x2a, 1, 0x73, 0x30, 3, 0x4a, keyValue.length, ...keyValue, 0x98, 0x06, 0xac, 0x02];
  const scopeSpans = [0x12, span.length, ...span];
  const resourceSpans = [0x12, scopeSpans.length, ...scopeSpans];
  const request = decodeExportTraceServiceRequest(Buffer.from([0x0a, resourceSpans.length, ...resourceSpans]));
  assert.deepEqual(request.resourceSpans?.[0]?.scopeSpans?.[0]?.spans?.[0], {
    traceId: '',
    spanId: '',
    name: 's',
    kind: 3,
    attributes: [{ key: 'n', value: { arrayValue: { values: [{ intValue: '-1' }, { stringValue: 'x' }] } } }],
  });
  assert.deepEqual(readFields(Buffer.from([0x98, 0x06, 0xac, 0x02])), [{ field: 99, wire: 'varint', value: 300n }]);
  assert.throws(() => readFields(Buffer.from([0x00, 0x01])), /field number 0/);
  assert.throws(() => readFields(Buffer.from([0x0b])), /wire type 3/);
  assert.throws(() => readFields(Buffer.from([0x08, 0x80])), /runs past the end/);
  assert.throws(() => readFields(Buffer.from([0x09, 1, 2, 3])), /runs past the end/);
  assert.throws(() => readFields(Buffer.from([0x08, ...Array(11).fill(0x80), 0x01])), /longer than 10 bytes/);
  // A string that is not UTF-8.
  assert.throws(() => decodeExportTraceServiceRequest(Buffer.from([0x0a, 7, 0x12, 5, 0x12, 3, 0x2a, 1, 0xff])), /encoded data was not valid/);
});
