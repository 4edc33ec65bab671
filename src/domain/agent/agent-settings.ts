/**
 * Agent settings (SPEC "Agent resources": Settings): the orchestrator model, its fallbacks, the soft
 * default media models, the routing policy and the default run limit. Pure rules: defaults, parsing
 * of a (partial) settings object, and merging the layers a run snapshots (user → conversation).
 */
import type { Catalog } from '../catalog/catalog.ts';
import type { ModelType } from '../catalog/catalog.types.ts';
import { echo } from '../echo.ts';
import { invalidInput } from '../errors.ts';
import { parseMicroUsdString } from './micro-usd.ts';

/**
 * How the agent picks a media model when the request names none (docs/decisions.md, "Agent"):
 * - `defaults`: the settings' model of the modality; the agent may choose another one when the
 *   inputs do not fit it (rule 9) and says why;
 * - `cheapest`: the lowest-priced visible model of the modality that fits the inputs;
 * - `pinned`: only the settings' models; another one needs an approved model-change proposal.
 */
export const ROUTING_POLICIES = ['defaults', 'cheapest', 'pinned'] as const;
export type RoutingPolicy = (typeof ROUTING_POLICIES)[number];

export interface AgentSettings {
  orchestratorModelId: string;
  fallbackModelIds: string[];
  imageModelId: string;
  videoModelId: string;
  musicModelId: string;
  routingPolicy: RoutingPolicy;
  /** Decimal integer string of micro-USD, as on the wire. */
  defaultMaxCostMicroUsd: string;
}

export type PartialAgentSettings = Partial<AgentSettings>;

const FIELDS: ReadonlyArray<keyof AgentSettings> = [
  'orchestratorModelId',
  'fallbackModelIds',
  'imageModelId',
  'videoModelId',
  'musicModelId',
  'routingPolicy',
  'defaultMaxCostMicroUsd',
];

const PREFERRED: Record<'orchestrator' | 'IMAGE' | 'VIDEO' | 'MUSIC', string> = {
  orchestrator: 'gpt-5.4-mini',
  IMAGE: 'nano-banana-2',
  VIDEO: 'sora-2',
  MUSIC: 'suno',
};

/** USD 2.00: room for an image, a video and a song at list prices, and the planning calls. */
export const DEFAULT_RUN_LIMIT_MICRO = 2_000_000;
/** USD 1,000 per run at most; a larger limit is a typo more often than a wish. */
export const MAX_RUN_LIMIT_MICRO = 1_000_000_000;
export const MAX_FALLBACK_MODELS = 5;

/** The built-in defaults, for a user who never saved settings (version 0). */
export function defaultAgentSettings(catalog: Catalog): AgentSettings {
  const firstOf = (type: Exclude<ModelType, 'TEXT'>): string => {
    const preferred = catalog.media(PREFERRED[type]);
    if (preferred) return preferred.id;
    return catalog.mediaModels().find((m) => m.type === type)?.id ?? '';
  };
  const chat = catalog.chat(PREFERRED.orchestrator) ?? catalog.chatModels()[0];
  return {
    orchestratorModelId: chat?.id ?? '',
    fallbackModelIds: [],
    imageModelId: firstOf('IMAGE'),
    videoModelId: firstOf('VIDEO'),
    musicModelId: firstOf('MUSIC'),
    routingPolicy: 'defaults',
    defaultMaxCostMicroUsd: String(DEFAULT_RUN_LIMIT_MICRO),
  };
}

/**
 * Parses a settings object from a request: every given field is checked (400 naming it at `path`);
 * unknown fields are refused. `complete` requires every field (it never is: omitted fields keep their
 * values, see mergeSettings).
 */
export function parseSettings(catalog: Catalog, value: unknown, path: string): PartialAgentSettings {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalidInput(`${path} must be an object`, path);
  const input = value as Record<string, unknown>;
  const out: PartialAgentSettings = {};
  for (const key of Object.keys(input)) {
    if (!(FIELDS as readonly string[]).includes(key)) throw invalidInput(`${path}.${key} is not a setting; known: ${FIELDS.join(', ')}`, `${path}.${key}`);
  }
  if (input.orchestratorModelId !== undefined) out.orchestratorModelId = textModel(catalog, input.orchestratorModelId, `${path}.orchestratorModelId`);
  if (input.fallbackModelIds !== undefined) {
    const field = `${path}.fallbackModelIds`;
    if (!Array.isArray(input.fallbackModelIds)) throw invalidInput(`${field} must be an array of text model ids`, field);
    if (input.fallbackModelIds.length > MAX_FALLBACK_MODELS) throw invalidInput(`${field} holds at most ${MAX_FALLBACK_MODELS} models`, field);
    const ids = input.fallbackModelIds.map((id, i) => textModel(catalog, id, `${field}[${i}]`));
    if (new Set(ids).size !== ids.length) throw invalidInput(`${field} names a model twice`, field);
    out.fallbackModelIds = ids;
  }
  if (input.imageModelId !== undefined) out.imageModelId = mediaModel(catalog, input.imageModelId, 'IMAGE', `${path}.imageModelId`);
  if (input.videoModelId !== undefined) out.videoModelId = mediaModel(catalog, input.videoModelId, 'VIDEO', `${path}.videoModelId`);
  if (input.musicModelId !== undefined) out.musicModelId = mediaModel(catalog, input.musicModelId, 'MUSIC', `${path}.musicModelId`);
  if (input.routingPolicy !== undefined) {
    const field = `${path}.routingPolicy`;
    if (typeof input.routingPolicy !== 'string' || !(ROUTING_POLICIES as readonly string[]).includes(input.routingPolicy)) {
      throw invalidInput(`${field} must be one of ${ROUTING_POLICIES.join(', ')}`, field);
    }
    out.routingPolicy = input.routingPolicy as RoutingPolicy;
  }
  if (input.defaultMaxCostMicroUsd !== undefined) {
    const micro = parseRunLimit(input.defaultMaxCostMicroUsd, `${path}.defaultMaxCostMicroUsd`);
    out.defaultMaxCostMicroUsd = String(micro);
  }
  return out;
}

/** A run limit from the wire: a decimal integer string of micro-USD, 1 to MAX_RUN_LIMIT_MICRO. */
export function parseRunLimit(value: unknown, field: string): number {
  const micro = parseMicroUsdString(value, field);
  if (micro < 1) throw invalidInput(`${field} must be at least 1 micro-USD`, field);
  if (micro > MAX_RUN_LIMIT_MICRO) throw invalidInput(`${field} must be at most ${MAX_RUN_LIMIT_MICRO} (USD 1,000)`, field);
  return micro;
}

/** Layers applied in order (later wins; a field a layer omits keeps the value below it). */
export function mergeSettings(base: AgentSettings, ...layers: PartialAgentSettings[]): AgentSettings {
  const out = { ...base, fallbackModelIds: [...base.fallbackModelIds] };
  for (const layer of layers) {
    for (const key of FIELDS) {
      const value = layer[key];
      if (value !== undefined) (out as Record<string, unknown>)[key] = Array.isArray(value) ? [...value] : value;
    }
  }
  return out;
}

/**
 * Settings saved earlier may name a model the operator has since hidden: such a field falls back to
 * the default (runs must not start on a model that no longer exists).
 */
export function withAvailableModels(catalog: Catalog, settings: AgentSettings): AgentSettings {
  const defaults = defaultAgentSettings(catalog);
  const mediaOk = (id: string, type: string) => catalog.media(id)?.type === type;
  return {
    ...settings,
    orchestratorModelId: catalog.chat(settings.orchestratorModelId) ? settings.orchestratorModelId : defaults.orchestratorModelId,
    fallbackModelIds: settings.fallbackModelIds.filter((id) => catalog.chat(id) !== undefined),
    imageModelId: mediaOk(settings.imageModelId, 'IMAGE') ? settings.imageModelId : defaults.imageModelId,
    videoModelId: mediaOk(settings.videoModelId, 'VIDEO') ? settings.videoModelId : defaults.videoModelId,
    musicModelId: mediaOk(settings.musicModelId, 'MUSIC') ? settings.musicModelId : defaults.musicModelId,
  };
}

function textModel(catalog: Catalog, value: unknown, field: string): string {
  if (typeof value !== 'string' || value === '') throw invalidInput(`${field} must be a text model id`, field);
  if (catalog.chat(value)) return value;
  if (catalog.media(value)) throw invalidInput(`${field}: ${echo(value)} is a media model; a text model is needed here`, field);
  throw invalidInput(`${field}: ${echo(value)} is not an available model (GET /api/v1/agent/models lists them)`, field);
}

function mediaModel(catalog: Catalog, value: unknown, type: Exclude<ModelType, 'TEXT'>, field: string): string {
  if (typeof value !== 'string' || value === '') throw invalidInput(`${field} must be a ${type.toLowerCase()} model id`, field);
  const media = catalog.media(value);
  if (!media) {
    if (catalog.chat(value)) throw invalidInput(`${field}: ${echo(value)} is a text model; an ${type.toLowerCase()} model is needed here`, field);
    throw invalidInput(`${field}: ${echo(value)} is not an available model (GET /api/v1/agent/models lists them)`, field);
  }
  if (media.type !== type) throw invalidInput(`${field}: ${echo(value)} is a ${media.type.toLowerCase()} model, not ${type.toLowerCase()}`, field);
  return value;
}
