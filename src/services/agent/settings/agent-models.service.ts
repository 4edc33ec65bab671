/**
 * GET /agent/models: the models a run can use, with current prices and, for text models, what each
 * route was verified to do (route-capabilities.service.ts), never guessed from a model's name.
 */
import type { Catalog } from '../../../domain/catalog/catalog.ts';
import { microToUsd } from '../../../domain/money.ts';
import type { MediaRouteSource } from '../../generation/task-routes.ts';
import { referenceCapacity } from '../engine/media-choice.ts';
import type { Capability, RouteCapabilities, RouteReport, Verdict } from './route-capabilities.service.ts';

export interface AgentModelView {
  id: string;
  name: string;
  type: string;
  kind: 'llm' | 'media';
  vendor: string | null;
  priceUnit: string;
  priceFrom: string | null;
  pricing: unknown;
  /** A route exists whose provider is configured. */
  executable: boolean;
  capabilities: Record<string, unknown>;
  routes?: Array<{ provider: string; upstreamModel: string; verified: RouteReport['capabilities'] }>;
}

const NAMES: Record<Capability, 'tools' | 'imageInput' | 'structuredOutput'> = { tools: 'tools', image_input: 'imageInput', structured_output: 'structuredOutput' };

export class AgentModelsService {
  readonly #catalog: Catalog;
  readonly #capabilities: RouteCapabilities;
  readonly #routes: MediaRouteSource;

  constructor(deps: { catalog: Catalog; capabilities: RouteCapabilities; mediaRoutes: MediaRouteSource }) {
    this.#catalog = deps.catalog;
    this.#capabilities = deps.capabilities;
    this.#routes = deps.mediaRoutes;
  }

  async list(): Promise<AgentModelView[]> {
    const out: AgentModelView[] = [];
    for (const model of this.#catalog.chatModels()) {
      const reports = await this.#capabilities.report(model.id);
      const capabilities: Record<string, Verdict> = {};
      for (const capability of Object.keys(NAMES) as Capability[]) capabilities[NAMES[capability]] = verdict(reports, capability);
      out.push({
        id: model.id,
        name: model.name,
        type: 'TEXT',
        kind: 'llm',
        vendor: model.vendor,
        priceUnit: 'megatoken',
        priceFrom: microToUsd(model.inputMicroPerMillion),
        pricing: {
          inputUsdPerMillion: microToUsd(model.inputMicroPerMillion),
          outputUsdPerMillion: microToUsd(model.outputMicroPerMillion),
          cachedInputUsdPerMillion: microToUsd(model.cachedInputMicroPerMillion),
        },
        executable: reports.some((r) => this.#routes.hasProvider(r.provider)),
        capabilities: { ...capabilities, contextWindow: model.contextWindow, maxOutputTokens: model.maxOutputTokens },
        routes: reports.map((r) => ({ provider: r.provider, upstreamModel: r.upstreamModel, verified: r.capabilities })),
      });
    }
    for (const info of this.#catalog.mediaModels()) {
      const model = this.#catalog.get(info.id);
      if (!model) continue;
      const routes = this.#routes.configured(info.id);
      const references = referenceCapacity(this.#catalog, info.id);
      out.push({
        id: info.id,
        name: info.name,
        type: info.type,
        kind: 'media',
        vendor: info.vendor,
        priceUnit: model.priceUnit,
        priceFrom: model.priceFrom ?? null,
        pricing: model.pricing,
        executable: routes.some((r) => this.#routes.hasProvider(r.provider)),
        capabilities: { referenceImages: Number.isFinite(references) ? references : null, acceptsReferenceImages: references > 0 },
      });
    }
    return out;
  }
}

function verdict(reports: RouteReport[], capability: Capability): Verdict {
  if (reports.some((r) => r.capabilities[capability]?.ok === true)) return 'verified';
  if (reports.length > 0 && reports.every((r) => r.capabilities[capability]?.ok === false)) return 'failed';
  return 'unverified';
}
