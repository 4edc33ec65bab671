import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/**
 * Prometheus metrics of one process. A registry per instance (not prom-client's global one) so that
 * several gateways in one test process do not collide.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly httpDuration: Histogram<'method' | 'route'>;
  readonly ledgerEntries: Counter<'kind'>;
  readonly providerCalls: Counter<'provider' | 'kind' | 'outcome'>;
  readonly tasks: Counter<'model' | 'status'>;
  readonly queueDepth: Gauge<'kind'>;
  readonly chatTokens: Counter<'model' | 'direction'>;

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'switchboard_process_' });
    this.httpRequests = new Counter({
      name: 'switchboard_http_requests_total',
      help: 'HTTP requests answered, by route pattern and status',
      labelNames: ['method', 'route', 'status'],
      registers: [this.registry],
    });
    this.httpDuration = new Histogram({
      name: 'switchboard_http_request_duration_seconds',
      help: 'Time to answer an HTTP request (until the response is sent; streams until they end)',
      labelNames: ['method', 'route'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60],
      registers: [this.registry],
    });
    this.ledgerEntries = new Counter({
      name: 'switchboard_ledger_entries_total',
      help: 'Ledger entries written, by kind',
      labelNames: ['kind'],
      registers: [this.registry],
    });
    this.providerCalls = new Counter({
      name: 'switchboard_provider_calls_total',
      help: 'Upstream provider calls, by provider, kind (media or chat) and outcome',
      labelNames: ['provider', 'kind', 'outcome'],
      registers: [this.registry],
    });
    this.tasks = new Counter({
      name: 'switchboard_tasks_total',
      help: 'Media tasks reaching a status',
      labelNames: ['model', 'status'],
      registers: [this.registry],
    });
    this.queueDepth = new Gauge({
      name: 'switchboard_queue_jobs',
      help: 'Jobs waiting in the work queue, by kind (sampled)',
      labelNames: ['kind'],
      registers: [this.registry],
    });
    this.chatTokens = new Counter({
      name: 'switchboard_chat_tokens_total',
      help: 'Tokens billed on text models, by direction (input, output)',
      labelNames: ['model', 'direction'],
      registers: [this.registry],
    });
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
