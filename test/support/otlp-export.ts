/**
 * The OTLP ExportTraceServiceRequest in the shape OTLP/JSON writes it (opentelemetry-proto's JSON
 * mapping: lowerCamelCase names, ids as hex, 64-bit integers as strings or numbers), the one shape the
 * test collector reads whichever encoding came in: test/support/otlp-protobuf.ts decodes protobuf to it.
 */

export interface OtlpAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  /** int64: a decimal string in JSON (a number from some senders). */
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values?: OtlpAnyValue[] };
  kvlistValue?: { values?: OtlpKeyValue[] };
  /** Base64, as the JSON mapping writes bytes. */
  bytesValue?: string;
}

export interface OtlpKeyValue {
  key: string;
  value?: OtlpAnyValue;
}

export interface OtlpSpan {
  /** Hex, 32 digits. */
  traceId: string;
  /** Hex, 16 digits. */
  spanId: string;
  /** Hex; absent or empty for a root span. */
  parentSpanId?: string;
  name: string;
  /** The SpanKind number: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind?: number;
  /** fixed64 nanoseconds since the epoch: a decimal string in JSON. */
  startTimeUnixNano?: number | string;
  endTimeUnixNano?: number | string;
  attributes?: OtlpKeyValue[];
  /** code: 0 unset, 1 ok, 2 error. */
  status?: { code?: number; message?: string };
}

export interface OtlpExport {
  resourceSpans?: Array<{
    resource?: { attributes?: OtlpKeyValue[] };
    scopeSpans?: Array<{ scope?: { name?: string; version?: string }; spans?: OtlpSpan[] }>;
  }>;
}
