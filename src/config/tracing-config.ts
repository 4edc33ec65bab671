/**
 * Tracing settings (issue 22, item 3), read from the standard OpenTelemetry variables: off unless
 * OTEL_TRACES_EXPORTER names an exporter or OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT is set, and
 * OTEL_SDK_DISABLED=true turns it off whatever else says. Prompt text goes into spans only with
 * SWITCHBOARD_TRACE_CONTENT=1. OTLP goes out over HTTP as protobuf (the OpenTelemetry default, and
 * the encoding OTLP/HTTP receivers most widely take) or as JSON when asked; gRPC, whose exporter is not
 * installed, is refused at start rather than sent to an endpoint that would drop it unseen.
 */
import { ConfigError } from '../domain/config-error.ts';

export type OtlpProtocol = 'http/protobuf' | 'http/json';

export interface TracingConfig {
  exporter: 'otlp' | 'console' | 'none';
  /** How the OTLP exporter encodes spans; http/protobuf unless OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL says http/json. */
  protocol: OtlpProtocol;
  serviceName: string;
  recordContent: boolean;
}

type Env = Record<string, string | undefined>;

export function readTracingConfig(env: Env): TracingConfig {
  const named = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase();
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_ENDPOINT;
  let exporter: TracingConfig['exporter'] = named ? 'none' : endpoint ? 'otlp' : 'none';
  if (named === 'otlp' || named === 'console') exporter = named;
  else if (named && named !== 'none') throw new ConfigError('OTEL_TRACES_EXPORTER', `must be otlp, console or none, got ${JSON.stringify(env.OTEL_TRACES_EXPORTER)}`);
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') exporter = 'none';
  // Only the OTLP exporter reads the protocol: a grpc left set for another tool does not stop `console`.
  const protocol = exporter === 'otlp' ? readProtocol(env) : 'http/protobuf';
  return { exporter, protocol, serviceName: env.OTEL_SERVICE_NAME?.trim() || 'switchboard', recordContent: env.SWITCHBOARD_TRACE_CONTENT === '1' };
}

/** The protocol the OTLP exporter speaks: the traces variable first, then the general one; unset is the OpenTelemetry default. */
function readProtocol(env: Env): OtlpProtocol {
  // An empty variable is an unset one, as the OpenTelemetry environment specification reads it.
  const name = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?.trim() ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = env[name]?.trim().toLowerCase();
  if (protocol === undefined || protocol === '' || protocol === 'http/protobuf') return 'http/protobuf';
  if (protocol === 'http/json') return 'http/json';
  throw new ConfigError(name, `must be http/protobuf or http/json (Switchboard exports OTLP over HTTP; an OpenTelemetry Collector takes both on its OTLP/HTTP port, 4318), got ${JSON.stringify(env[name])}`);
}
