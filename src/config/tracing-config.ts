/**
 * Tracing settings (issue 22, item 3), read from the standard OpenTelemetry variables: off unless
 * OTEL_TRACES_EXPORTER names an exporter or OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT is set, and
 * OTEL_SDK_DISABLED=true turns it off whatever else says. Prompt text goes into spans only with
 * SWITCHBOARD_TRACE_CONTENT=1. OTLP goes out as HTTP JSON (the OpenTelemetry Collector's OTLP/HTTP
 * receiver takes it on the same port as protobuf); another protocol asked for is refused at start
 * rather than sent to an endpoint that would drop it unseen.
 */
import { ConfigError } from '../domain/config-error.ts';

export interface TracingConfig {
  exporter: 'otlp' | 'console' | 'none';
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
  if (exporter === 'otlp') checkProtocol(env);
  return { exporter, serviceName: env.OTEL_SERVICE_NAME?.trim() || 'switchboard', recordContent: env.SWITCHBOARD_TRACE_CONTENT === '1' };
}

/** The protocol the OTLP exporter speaks: http/json only (unset means that too). */
function checkProtocol(env: Env): void {
  const name = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL !== undefined ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = env[name]?.trim().toLowerCase();
  if (protocol === undefined || protocol === '' || protocol === 'http/json') return;
  throw new ConfigError(name, `must be http/json (Switchboard exports OTLP over HTTP as JSON; an OpenTelemetry Collector takes it on its OTLP/HTTP port, 4318), got ${JSON.stringify(env[name])}`);
}
