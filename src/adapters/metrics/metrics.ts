import { Counter, collectDefaultMetrics, Registry } from 'prom-client';
import { registerStoreGauges, type StoreSample } from './store-gauges.ts';
import { FastCounter, FastHistogram } from './fast-metrics.ts';

/**
 * Prometheus metrics of one process. A registry per instance (not prom-client's global one) so that
 * several gateways in one test process do not collide. The counters and histograms updated on request
 * paths are fast-metrics.ts's (plain additions, read when scraped).
 */
export class Metrics {
  readonly registry = new Registry();
  readonly httpRequests: FastCounter<'method' | 'route' | 'status'>;
  readonly httpDuration: FastHistogram<'method' | 'route'>;
  readonly ledgerEntries: FastCounter<'kind'>;
  readonly providerCalls: FastCounter<'provider' | 'kind' | 'outcome'>;
  readonly tasks: FastCounter<'model' | 'status'>;
  readonly chatTokens: FastCounter<'model' | 'direction'>;
  readonly chatLaneRequests: FastCounter<'route'>;
  readonly upstreamAnomalies: FastCounter<'kind'>;
  readonly agentEngineTime: FastHistogram<'outcome'>;
  readonly unhandledRejections: Counter;

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'switchboard_process_' });
    this.httpRequests = new FastCounter({
      name: 'switchboard_http_requests_total',
      help: 'HTTP requests answered, by route pattern and status',
      labelNames: ['method', 'route', 'status'],
      registers: [this.registry],
    });
    this.httpDuration = new FastHistogram({
      name: 'switchboard_http_request_duration_seconds',
      help: 'Time to answer an HTTP request (until the response is sent; streams until they end)',
      labelNames: ['method', 'route'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60],
      registers: [this.registry],
    });
    this.ledgerEntries = new FastCounter({
      name: 'switchboard_ledger_entries_total',
      help: 'Ledger entries written, by kind',
      labelNames: ['kind'],
      registers: [this.registry],
    });
    this.providerCalls = new FastCounter({
      name: 'switchboard_provider_calls_total',
      help: 'Upstream provider calls, by provider, kind (media or chat) and outcome',
      labelNames: ['provider', 'kind', 'outcome'],
      registers: [this.registry],
    });
    this.tasks = new FastCounter({
      name: 'switchboard_tasks_total',
      help: 'Media tasks reaching a status',
      labelNames: ['model', 'status'],
      registers: [this.registry],
    });
    this.chatTokens = new FastCounter({
      name: 'switchboard_chat_tokens_total',
      help: 'Tokens billed on text models, by direction (input, output)',
      labelNames: ['model', 'direction'],
      registers: [this.registry],
    });
    this.chatLaneRequests = new FastCounter({
      name: 'switchboard_chat_lane_requests_total',
      help: 'Text requests answered by the chat lane (the hot path before the framework), by route',
      labelNames: ['route'],
      registers: [this.registry],
    });
    this.upstreamAnomalies = new FastCounter({
      name: 'switchboard_upstream_anomalies_total',
      help: 'Upstream answers not taken as sent (usage counts corrected before billing, callbacks naming another job), by kind',
      labelNames: ['kind'],
      registers: [this.registry],
    });
    this.agentEngineTime = new FastHistogram({
      name: 'switchboard_agent_engine_seconds',
      help: 'Time the run engine spends on one step of a run, without the wait for the orchestrator model (by what the step led to: now, later, idle)',
      labelNames: ['outcome'],
      buckets: [0.0005, 0.001, 0.002, 0.003, 0.005, 0.0075, 0.01, 0.015, 0.025, 0.05, 0.1, 0.25, 1],
      registers: [this.registry],
    });
    this.unhandledRejections = new Counter({
      name: 'switchboard_unhandled_rejections_total',
      help: 'Promise rejections nobody handled (logged; each one is a bug to fix)',
      registers: [this.registry],
    });
  }

  /** The queue and hold gauges, read from the store at scrape time (see store-gauges.ts). */
  sampleStore(sample: () => Promise<StoreSample>): void {
    registerStoreGauges(this.registry, sample);
  }

  /** One answered HTTP request: the request counter and the duration histogram. */
  observeHttp(method: string, route: string, status: number, seconds: number): void {
    this.httpRequests.inc({ method, route, status });
    this.httpDuration.observe({ method, route }, seconds);
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
