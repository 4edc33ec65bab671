import type { Logger } from 'pino';
import type { Metrics } from '../../../adapters/metrics/metrics.ts';
import type { AgentConfig, RouteTarget } from '../../../config/config.types.ts';
import type { Catalog } from '../../../domain/catalog/catalog.ts';
import type { BlobStore } from '../../../ports/blob-store.port.ts';
import type { ChatService } from '../../chat/chat.service.ts';
import type { RunOperationDoor } from '../../accounts/key-door.ts';
import type { EstimateService } from '../../generation/estimate.service.ts';
import type { RouteRefusalCheck } from '../../generation/create-generation.service.ts';
import type { AgentWriter } from '../events/agent-writer.ts';
import type { AttachmentsService } from '../attachments/attachments.service.ts';
import type { RouteCapabilities } from '../settings/route-capabilities.service.ts';
import type { FaultPoints } from '../../../ports/fault-points.port.ts';
import type { RunAborts } from './run-aborts.ts';

/** What the run engine works with; built once by the composition root. */
export interface EngineDeps {
  writer: AgentWriter;
  catalog: Catalog;
  attachments: AttachmentsService;
  chat: ChatService;
  /** The API key's door (allow-list, concurrency, rate), passed by each model call and media dispatch. */
  door: RunOperationDoor;
  estimates: EstimateService;
  blobs: BlobStore;
  capabilities: RouteCapabilities;
  /** The operator's media routes (config.routes), as create-generation uses them. */
  routes: Record<string, RouteTarget[]>;
  /** Drops routes that cannot serve a dispatch's input (create-generation's check). */
  routeRefusal?: RouteRefusalCheck;
  allowPrivateUrls: boolean;
  /** The gateway's public base URL (its own file URLs are references it may pass on). */
  publicBaseUrl: () => string;
  config: AgentConfig;
  aborts: RunAborts;
  faults: FaultPoints;
  logger: Logger;
  metrics?: Metrics;
}

/** Per job invocation: how long it waited for the orchestrator model (the rest is the engine's own time). */
export interface StepClock {
  modelWaitMs: number;
}
