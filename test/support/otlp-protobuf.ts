/**
 * OTLP/HTTP protobuf for the test collector: an ExportTraceServiceRequest decoded into the shape the
 * JSON encoding has (test/support/otlp-export.ts), so every assertion reads both alike. Field numbers
 * are opentelemetry-proto's: collector/trace/v1/trace_service.proto, trace/v1/trace.proto,
 * common/v1/common.proto, resource/v1/resource.proto. Fields not listed are skipped, as a proto3
 * reader skips unknown fields; a field with the wrong wire type or a truncated body throws.
 */
import type { OtlpAnyValue, OtlpExport, OtlpKeyValue, OtlpSpan } from './otlp-export.ts';
import { double, fixed64, lengthDelimited, readFields, utf8, varint, type WireField } from './protobuf-wire.ts';

/** ExportTraceServiceResponse with no partial_success: an empty message is zero bytes. */
export const EMPTY_EXPORT_RESPONSE = Buffer.alloc(0);

/**
 * google.rpc.Status { int32 code = 1; string message = 2; }, what an OTLP/HTTP receiver answers a
 * refused protobuf body with; code 3 is INVALID_ARGUMENT.
 */
export function encodeInvalidArgument(message: string): Buffer {
  const text = Buffer.from(message, 'utf8');
  return Buffer.concat([Buffer.from([0x08, 3, 0x12]), encodeVarint(text.length), text]);
}

function encodeVarint(n: number): Buffer {
  const bytes: number[] = [];
  let rest = n;
  while (rest >= 0x80) {
    bytes.push((rest & 0x7f) | 0x80);
    rest = Math.floor(rest / 128);
  }
  bytes.push(rest);
  return Buffer.from(bytes);
}

/** ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; } */
export function decodeExportTraceServiceRequest(body: Buffer): OtlpExport {
  return { resourceSpans: each(body, 1, resourceSpans) };
}

/** ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; string schema_url = 3; } */
function resourceSpans(bytes: Buffer): NonNullable<OtlpExport['resourceSpans']>[number] {
  const fields = readFields(bytes);
  const resource = last(fields, 1);
  return {
    ...(resource ? { resource: { attributes: each(lengthDelimited(resource), 1, keyValue) } } : {}),
    scopeSpans: fields.filter((f) => f.field === 2).map((f) => scopeSpans(lengthDelimited(f))),
  };
}

/** ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; } with InstrumentationScope { string name = 1; string version = 2; } */
function scopeSpans(bytes: Buffer): { scope?: { name?: string; version?: string }; spans: OtlpSpan[] } {
  const fields = readFields(bytes);
  const scope = last(fields, 1);
  const scopeFields = scope ? readFields(lengthDelimited(scope)) : [];
  const scopeName = last(scopeFields, 1);
  const scopeVersion = last(scopeFields, 2);
  return {
    ...(scope ? { scope: { ...(scopeName ? { name: utf8(scopeName) } : {}), ...(scopeVersion ? { version: utf8(scopeVersion) } : {}) } } : {}),
    spans: fields.filter((f) => f.field === 2).map((f) => span(lengthDelimited(f))),
  };
}

/**
 * Span { bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4;
 * string name = 5; SpanKind kind = 6; fixed64 start_time_unix_nano = 7; fixed64 end_time_unix_nano = 8;
 * repeated KeyValue attributes = 9; ... Status status = 15; fixed32 flags = 16; }
 */
function span(bytes: Buffer): OtlpSpan {
  const fields = readFields(bytes);
  const hex = (n: number) => {
    const f = last(fields, n);
    return f ? lengthDelimited(f).toString('hex') : '';
  };
  const name = last(fields, 5);
  const kind = last(fields, 6);
  const start = last(fields, 7);
  const end = last(fields, 8);
  const status = last(fields, 15);
  const parentSpanId = hex(4);
  return {
    traceId: hex(1),
    spanId: hex(2),
    ...(parentSpanId ? { parentSpanId } : {}),
    name: name ? utf8(name) : '',
    ...(kind ? { kind: Number(varint(kind)) } : {}),
    ...(start ? { startTimeUnixNano: fixed64(start).toString() } : {}),
    ...(end ? { endTimeUnixNano: fixed64(end).toString() } : {}),
    attributes: fields.filter((f) => f.field === 9).map((f) => keyValue(lengthDelimited(f))),
    ...(status ? { status: statusOf(lengthDelimited(status)) } : {}),
  };
}

/** Status { reserved 1; string message = 2; StatusCode code = 3; } */
function statusOf(bytes: Buffer): { code?: number; message?: string } {
  const fields = readFields(bytes);
  const message = last(fields, 2);
  const code = last(fields, 3);
  return { ...(code ? { code: Number(varint(code)) } : {}), ...(message ? { message: utf8(message) } : {}) };
}

/** KeyValue { string key = 1; AnyValue value = 2; } */
function keyValue(bytes: Buffer): OtlpKeyValue {
  const fields = readFields(bytes);
  const key = last(fields, 1);
  const value = last(fields, 2);
  return { key: key ? utf8(key) : '', ...(value ? { value: anyValue(lengthDelimited(value)) } : {}) };
}

/**
 * AnyValue { oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3;
 * double double_value = 4; ArrayValue array_value = 5; KeyValueList kvlist_value = 6; bytes bytes_value = 7; } }
 * with ArrayValue { repeated AnyValue values = 1; } and KeyValueList { repeated KeyValue values = 1; }.
 * Of a oneof, the last field on the wire wins.
 */
function anyValue(bytes: Buffer): OtlpAnyValue {
  const f = readFields(bytes).findLast((v) => v.field >= 1 && v.field <= 7);
  if (!f) return {};
  switch (f.field) {
    case 1:
      return { stringValue: utf8(f) };
    case 2:
      return { boolValue: varint(f) !== 0n };
    case 3:
      // int64 is two's complement on the wire; a decimal string, as the JSON mapping writes it.
      return { intValue: BigInt.asIntN(64, varint(f)).toString() };
    case 4:
      return { doubleValue: double(f) };
    case 5:
      return { arrayValue: { values: each(lengthDelimited(f), 1, anyValue) } };
    case 6:
      return { kvlistValue: { values: each(lengthDelimited(f), 1, keyValue) } };
    case 7:
      return { bytesValue: lengthDelimited(f).toString('base64') };
    default:
      return {};
  }
}

/** Every occurrence of a repeated message field, decoded. */
function each<T>(bytes: Buffer, field: number, decode: (bytes: Buffer) => T): T[] {
  return readFields(bytes)
    .filter((f) => f.field === field)
    .map((f) => decode(lengthDelimited(f)));
}

/** A singular field: the last one on the wire wins (for a message, proto3 merges; the OTLP exporters never repeat one). */
function last(fields: WireField[], field: number): WireField | undefined {
  return fields.findLast((f) => f.field === field);
}
