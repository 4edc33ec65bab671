/**
 * What the standard OTEL_* variables select (src/config/tracing-config.ts): tracing off unless one
 * names an exporter, and the OTLP exporter's protocol, http/protobuf unless http/json is asked for;
 * grpc, whose exporter is not installed, refused at start naming the variable.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../../src/config/load-config.ts';
import { readTracingConfig } from '../../../src/config/tracing-config.ts';
import { ConfigError } from '../../../src/domain/config-error.ts';

const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };

function refusedFor(env: Record<string, string>, variable: string): void {
  assert.throws(
    () => readTracingConfig(env),
    (error: unknown) => error instanceof ConfigError && error.field === variable && /http\/protobuf or http\/json/.test(error.message),
  );
}

test('tracing is off unless an OTEL_* variable names an exporter', () => {
  assert.equal(loadConfig({}).tracing.exporter, 'none');
  assert.equal(readTracingConfig(endpoint).exporter, 'otlp');
  assert.equal(readTracingConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }).exporter, 'otlp');
  assert.equal(readTracingConfig({ OTEL_TRACES_EXPORTER: 'console' }).exporter, 'console');
  assert.equal(readTracingConfig({ ...endpoint, OTEL_SDK_DISABLED: 'true' }).exporter, 'none');
  assert.equal(readTracingConfig({}).recordContent, false);
  assert.equal(readTracingConfig({ SWITCHBOARD_TRACE_CONTENT: '1' }).recordContent, true);
  assert.throws(() => readTracingConfig({ OTEL_TRACES_EXPORTER: 'zipkin' }), /OTEL_TRACES_EXPORTER/);
});

test('OTLP goes out as protobuf unless http/json is asked for, as the OpenTelemetry specification defaults', () => {
  assert.equal(readTracingConfig(endpoint).protocol, 'http/protobuf');
  assert.equal(readTracingConfig({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: '' }).protocol, 'http/protobuf');
  assert.equal(readTracingConfig({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' }).protocol, 'http/protobuf');
  assert.equal(readTracingConfig({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }).protocol, 'http/json');
  assert.equal(readTracingConfig({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: ' HTTP/JSON ' }).protocol, 'http/json');
  assert.equal(readTracingConfig({ ...endpoint, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' }).protocol, 'http/json');
  assert.equal(loadConfig({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }).tracing.protocol, 'http/json');
});

test('the traces variable wins over the general one, either way', () => {
  assert.equal(readTracingConfig({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' }).protocol, 'http/protobuf');
  assert.equal(readTracingConfig({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' }).protocol, 'http/json');
  // An empty traces variable is unset: the general one speaks.
  assert.equal(readTracingConfig({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: '' }).protocol, 'http/json');
  // A grpc meant for other signals does not stop traces that ask for HTTP.
  assert.equal(readTracingConfig({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' }).protocol, 'http/json');
});

test('grpc and unknown protocols are refused at start, naming the variable and what it takes', () => {
  refusedFor({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, 'OTEL_EXPORTER_OTLP_PROTOCOL');
  refusedFor({ ...endpoint, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' }, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL');
  refusedFor({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' }, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL');
  refusedFor({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/proto' }, 'OTEL_EXPORTER_OTLP_PROTOCOL');
  assert.throws(() => loadConfig({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }), /OTEL_EXPORTER_OTLP_PROTOCOL/);
  // Only the OTLP exporter reads the protocol: the console exporter or tracing off is not refused for it.
  assert.equal(readTracingConfig({ OTEL_TRACES_EXPORTER: 'console', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }).exporter, 'console');
  assert.equal(readTracingConfig({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }).exporter, 'none');
});
