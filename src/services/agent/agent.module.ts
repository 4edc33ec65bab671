/**
 * Builds the agent's services for the composition root (gateway.ts): the event hub and writer, the
 * settings, conversations, messages, run controls and views, webhooks, verified capabilities, and the
 * run engine's dependencies.
 */
import type { Logger } from 'pino';
import type { Metrics } from '../../adapters/metrics/metrics.ts';
import type { Config } from '../../config/config.types.ts';
import type { Catalog } from '../../domain/catalog/catalog.ts';
import type { AgentLibraryStore } from '../../ports/agent-library-store.port.ts';
import type { AgentStore } from '../../ports/agent-store.port.ts';
import type { AgentViews } from '../../ports/agent-views.port.ts';
import type { BlobStore } from '../../ports/blob-store.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';
import type { CpuPool } from '../../ports/cpu-pool.port.ts';
import { prepareGeneration, type RouteRefusalCheck, writePaidTask } from '../generation/create-generation.service.ts';
import type { MediaRouteSource } from '../generation/task-routes.ts';
import type { LedgerBook } from '../../ports/ledger.port.ts';
import type { TaskStore } from '../../ports/task-store.port.ts';
import type { WebhookStore } from '../../ports/webhook-store.port.ts';
import type { EventBus } from '../../ports/event-bus.port.ts';
import type { WorkQueue } from '../../ports/work-queue.port.ts';
import type { ChatService } from '../chat/chat.service.ts';
import type { EstimateService } from '../generation/estimate.service.ts';
import { AgentClock } from './agent-clock.ts';
import { AgentModelsService } from './settings/agent-models.service.ts';
import { AttachmentsService } from './attachments/attachments.service.ts';
import { AgentSettingsService } from './settings/agent-settings.service.ts';
import { AgentWebhooksService } from './events/agent-webhooks.service.ts';
import { AgentWebhookDeliveriesService } from './events/agent-webhook-deliveries.service.ts';
import type { RateLimiter } from '../../ports/rate-limiter.port.ts';
import { MemoryRateLimiter } from '../../adapters/rate-limit/memory-rate-limiter.ts';
import { AgentWriter } from './events/agent-writer.ts';
import { ContextReferencesService } from './conversations/context-references.service.ts';
import { ConversationsService } from './conversations/conversations.service.ts';
import type { EngineDeps, GenerationDispatch } from './engine/engine-deps.ts';
import type { RunOperationDoor } from '../accounts/key-door.ts';
import { ProcessFaultPoints } from '../../adapters/resilience/fault-points.ts';
import { RunAborts } from './engine/run-aborts.ts';
import { AgentEventHub } from './events/event-hub.ts';
import type { EnqueueEventDelivery } from './events/event-log.ts';
import { enqueueWebhookDelivery } from '../webhooks/webhook-deliveries.ts';
import { MessagesService } from './conversations/messages.service.ts';
import { ProjectsService } from './projects/projects.service.ts';
import { RouteCapabilities } from './settings/route-capabilities.service.ts';
import { RunControlsService } from './runs/run-controls.service.ts';
import { RunViewsService } from './runs/run-views.service.ts';
import { Storefronts } from './settings/storefronts.ts';

export interface AgentServices {
  storefronts: Storefronts;
  hub: AgentEventHub;
  writer: AgentWriter;
  capabilities: RouteCapabilities;
  models: AgentModelsService;
  settings: AgentSettingsService;
  conversations: ConversationsService;
  messages: MessagesService;
  controls: RunControlsService;
  views: RunViewsService;
  webhooks: AgentWebhooksService;
  /** Test events, recent deliveries and redelivery of a destination (Settings). */
  webhookDeliveries: AgentWebhookDeliveriesService;
  attachments: AttachmentsService;
  context: ContextReferencesService;
  projects: ProjectsService;
  /** The clock of the agent's expiries (attachments); tests move it forward. */
  clock: AgentClock;
  aborts: RunAborts;
  engine: EngineDeps;
}

export interface AgentModuleDeps {
  config: Config;
  /** The library's store (conversations, messages, attachments, projects, settings, webhooks) and its read models of runs. */
  library: { store: AgentLibraryStore; views: AgentViews };
  /** The agent's store (runs, steps, operations, events), the unit of work its transactions run in, and the money book. */
  agentStore: AgentStore;
  uow: UnitOfWork;
  ledger: LedgerBook;
  /** The media tasks' store: the run's generations are written as a create through the API writes them. */
  tasks: TaskStore;
  /** Where the events' webhook deliveries are written. */
  webhookStore: WebhookStore;
  bus: EventBus;
  queue: WorkQueue;
  catalog: Catalog;
  chat: ChatService;
  estimates: EstimateService;
  blobs: BlobStore;
  /** Where uploaded files are checked and read, off the event loop. */
  cpu: CpuPool;
  logger: Logger;
  metrics?: Metrics;
  /** The gateway's public base URL (known once the server has bound). */
  publicBaseUrl: () => string;
  /** The API keys' door, which each operation of a run passes against the key that started it. */
  keyDoor: RunOperationDoor;
  /** The gateway's calendar, shared with retention and storage (a new one when not given). */
  clock?: AgentClock;
  /** Drops routes that cannot serve a dispatch's input, as a create through the API does. */
  routeRefusal?: RouteRefusalCheck;
  /** The media routes served now (issue 32). */
  mediaRoutes: MediaRouteSource;
  /** Counts test events per user; the gateway's shared limiter (this process's memory when not given). */
  rateLimiter?: RateLimiter;
}

export function buildAgentServices(deps: AgentModuleDeps): AgentServices {
  const { config, bus, catalog, logger } = deps;
  const { agentStore, uow } = deps;
  const { store, views: agentViews } = deps.library;
  const hub = new AgentEventHub({ bus, store: agentStore, uow, logger });
  const enqueueDelivery: EnqueueEventDelivery = (tx, delivery) => enqueueWebhookDelivery(tx, { store: deps.webhookStore, queue: deps.queue }, delivery);
  const writer = new AgentWriter({ uow, store: agentStore, queue: deps.queue, enqueueDelivery, hub, logger });
  const capabilities = new RouteCapabilities({ store, uow, router: deps.chat.router, catalog, logger, maxAgeMs: config.agent.capabilityProbeIntervalMs });
  const settings = new AgentSettingsService({ store, uow, catalog, capabilities });
  const aborts = new RunAborts(bus);
  const clock = deps.clock ?? new AgentClock();
  const projects = new ProjectsService({ store, uow, catalog, capabilities });
  const attachments = new AttachmentsService({ store, uow, blobs: deps.blobs, publicBaseUrl: deps.publicBaseUrl, logger, now: clock.now, cpu: deps.cpu });
  return {
    storefronts: new Storefronts(config.storefronts),
    hub,
    writer,
    capabilities,
    models: new AgentModelsService({ catalog, capabilities, mediaRoutes: deps.mediaRoutes }),
    settings,
    conversations: new ConversationsService({ store, views: agentViews, uow, catalog, writer, bus, hub }),
    messages: new MessagesService({ store, views: agentViews, agentStore, uow, catalog, writer, settings, attachments, projects }),
    controls: new RunControlsService({ store, views: agentViews, agentStore, uow, catalog, writer, bus }),
    views: new RunViewsService({ views: agentViews, store, uow, blobs: deps.blobs }),
    webhooks: new AgentWebhooksService({ store, uow, allowPrivateUrls: config.allowPrivateUrls, webhooks: config.webhooks }),
    webhookDeliveries: new AgentWebhookDeliveriesService({ store, uow, queue: deps.queue, limiter: deps.rateLimiter ?? new MemoryRateLimiter(), testLimit: config.limits.webhookTestsPerUser }),
    attachments,
    context: new ContextReferencesService({ store, uow, writer }),
    projects,
    clock,
    aborts,
    engine: {
      writer,
      store: agentStore,
      uow,
      ledger: deps.ledger,
      catalog,
      attachments,
      chat: deps.chat,
      door: deps.keyDoor,
      generations: generationDispatch(deps),
      blobs: deps.blobs,
      capabilities,
      config: config.agent,
      aborts,
      faults: new ProcessFaultPoints(config.faultPoints),
      logger,
      ...(deps.metrics ? { metrics: deps.metrics } : {}),
    },
  };
}

/**
 * The run's generations, through the media generation service as a create through the API makes
 * them: its prices, the operator's routes and their refusals, in the engine's store transaction.
 */
function generationDispatch(deps: AgentModuleDeps): GenerationDispatch {
  const create = {
    tasks: deps.tasks,
    uow: deps.uow,
    catalog: deps.catalog,
    estimates: deps.estimates,
    routes: deps.mediaRoutes,
    allowPrivateUrls: deps.config.allowPrivateUrls,
    publicBaseUrl: deps.publicBaseUrl,
    ...(deps.routeRefusal ? { routeRefusal: deps.routeRefusal } : {}),
  };
  return {
    prepare: (userId, body, now, extra) => prepareGeneration(create, userId, body, now, { idempotencyKey: null, requestHash: null, ...extra }),
    writePaid: (tx, task) => writePaidTask(tx, { ledger: deps.ledger, tasks: deps.tasks, queue: deps.queue }, task),
  };
}
