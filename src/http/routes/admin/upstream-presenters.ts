/**
 * The live upstreams as the admin API shows them: keys as hints with their live state, routes with
 * each entry's state, recent error and share of the last hour's calls. No secret leaves here: keys
 * are hints, secret options are masked.
 */
import type { RouteTarget } from '../../../config/config.types.ts';
import type { Catalog } from '../../../domain/catalog/catalog.ts';
import { usdToMicro } from '../../../domain/money.ts';
import { chatEntryAtLoss, mediaEntryAtLossOnAnyTier } from '../../../domain/routing/route-cost.ts';
import { entrySubject, keySubject } from '../../../domain/upstreams/health-subjects.ts';
import type { UpstreamKey, UpstreamProvider } from '../../../domain/upstreams/live-upstreams.ts';
import type { UpstreamHealthBoard } from '../../../ports/upstream-health.port.ts';
import type { RoutePlanner } from '../../../services/upstreams/route-planner.ts';
import { maskOptions } from '../../../services/upstreams/secret-options.ts';
import type { UpstreamDirectory } from '../../../services/upstreams/upstream-directory.ts';
import { iso } from '../../schemas.ts';

export interface UpstreamPresenterDeps {
  catalog: Catalog;
  upstreams: UpstreamDirectory;
  routePlanner: RoutePlanner;
  upstreamHealth: UpstreamHealthBoard;
}

const stateSchema = { type: 'string', enum: ['healthy', 'cooling', 'disabled'] } as const;

export const keySchema = {
  type: 'object',
  required: ['id', 'hint', 'label', 'weight', 'enabled', 'state', 'disabledReason', 'coolingUntil', 'lastError', 'lastErrorAt', 'callsLastHour'],
  properties: {
    id: { type: 'string', description: '`file` for the config file\'s key; `upk_…` for a key added live' },
    hint: { type: 'string', description: 'The start and the last characters of the secret (`sk-…abcd`); the secret itself is never shown' },
    label: { type: ['string', 'null'] },
    weight: { type: 'number' },
    enabled: { type: 'boolean', description: 'Switched on by the operator' },
    state: { ...stateSchema, description: '`disabled`: switched off, or refused by the upstream (auth, quota) until switched on again' },
    disabledReason: { type: ['string', 'null'] },
    coolingUntil: { type: ['string', 'null'], format: 'date-time' },
    lastError: { type: ['string', 'null'] },
    lastErrorAt: { type: ['string', 'null'], format: 'date-time' },
    callsLastHour: { type: 'integer', description: 'Upstream calls with this key in the last hour, counted by the process that answers' },
  },
};

export const liveProviderFields = {
  enabled: { type: 'boolean' },
  timeoutMs: { type: 'integer' },
  options: { type: 'object', additionalProperties: true, description: 'Secret-looking values (keys, secrets, tokens, headers) as hints' },
  source: { type: 'string', enum: ['file', 'live'], description: '`live`: stored through the admin API, which wins over the config file' },
  version: { type: ['integer', 'null'], description: 'What `expectedVersion` names; null for a provider of the config file not changed live' },
  keys: { type: 'array', items: keySchema },
};

/** Calls per subject in the last hour (every process's, when they share a tally). */
export type CallCounts = ReadonlyMap<string, number>;

export async function callCounts(deps: UpstreamPresenterDeps, subjects: string[], now: number = Date.now()): Promise<CallCounts> {
  return deps.routePlanner.traffic ? deps.routePlanner.traffic.lastHour(subjects, now) : new Map();
}

export function keySubjectsOf(providers: UpstreamProvider[]): string[] {
  return providers.flatMap((p) => p.keys.map((k) => keySubject(p.name, k.id)));
}

export function presentKey(deps: UpstreamPresenterDeps, provider: UpstreamProvider, key: UpstreamKey, now: number, calls: CallCounts) {
  const record = deps.upstreamHealth.record(keySubject(provider.name, key.id), now);
  return {
    id: key.id,
    hint: key.hint,
    label: key.label,
    weight: key.weight,
    enabled: key.enabled,
    state: deps.routePlanner.keyState(provider, key, now),
    disabledReason: key.enabled ? (record?.disabledReason ?? null) : 'switched off',
    coolingUntil: record?.state === 'cooling' && record.coolingUntil !== null ? iso(record.coolingUntil) : null,
    lastError: record?.lastError ?? null,
    lastErrorAt: iso(record?.lastErrorAt ?? null),
    callsLastHour: calls.get(keySubject(provider.name, key.id)) ?? 0,
  };
}

/** A provider's live settings (the admin list adds its models and recent health). */
export function presentLiveProvider(deps: UpstreamPresenterDeps, provider: UpstreamProvider, now: number, calls: CallCounts) {
  return {
    name: provider.name,
    type: provider.type,
    baseUrl: provider.baseUrl ?? null,
    concurrency: provider.concurrency,
    timeoutMs: provider.timeoutMs,
    options: maskOptions(provider.options),
    enabled: provider.enabled,
    source: provider.source,
    version: provider.version,
    // A keyless provider (local) has no key to show.
    keys: provider.keys.filter((k) => k.secret !== undefined || k.hint !== '').map((k) => presentKey(deps, provider, k, now, calls)),
  };
}

export const routeEntrySchema = {
  type: 'object',
  required: ['provider', 'model', 'priority', 'weight', 'cost', 'allowLoss', 'atLoss', 'state', 'lastError', 'lastErrorAt', 'callsLastHour', 'share', 'keys'],
  properties: {
    provider: { type: 'string' },
    model: { type: 'string', description: 'The upstream model' },
    priority: { type: 'integer', description: 'Lower is tried first' },
    weight: { type: 'number', description: 'Share of first picks within its priority' },
    cost: {
      type: ['object', 'null'],
      description: 'What the upstream charges here, priced like the catalog (text: USD per 1M tokens; media: USD per tier unit)',
      properties: { inputPrice: { type: 'string' }, outputPrice: { type: 'string' }, cachedInputPrice: { type: 'string' }, pricing: { type: 'array', items: { type: 'object', required: ['key', 'price'], properties: { key: { type: 'string' }, price: { type: 'string' } } } } },
    },
    allowLoss: { type: 'boolean', description: 'A failover may move requests here even at a loss' },
    atLoss: { type: 'boolean', description: 'Its cost is above the price (for media: on some tier); no failover moves a request here unless allowLoss' },
    state: stateSchema,
    lastError: { type: ['string', 'null'] },
    lastErrorAt: { type: ['string', 'null'], format: 'date-time' },
    callsLastHour: { type: 'integer' },
    share: { type: 'number', description: "This entry's part of the route's calls in the last hour (0 to 1), counted by the process that answers" },
    keys: { type: 'array', items: { type: 'object', required: ['id', 'hint', 'state'], properties: { id: { type: 'string' }, hint: { type: 'string' }, state: stateSchema } } },
  },
};

/** A model's route as served now: its own (file or live), or `local`'s default for a model without one. */
export async function presentRoute(deps: UpstreamPresenterDeps, modelId: string, now: number = Date.now()) {
  const route = deps.upstreams.route(modelId);
  const targets: RouteTarget[] = deps.upstreams.targets(modelId) ?? [{ provider: 'local', model: modelId }];
  const counts = await callCounts(deps, targets.map((t) => entrySubject(t.provider, t.model)), now);
  const calls = targets.map((t) => counts.get(entrySubject(t.provider, t.model)) ?? 0);
  const total = calls.reduce((a, b) => a + b, 0);
  return {
    modelId,
    source: route?.source ?? 'default',
    version: route?.version ?? null,
    entries: targets.map((t, i) => {
      const provider = deps.upstreams.provider(t.provider);
      const record = deps.upstreamHealth.record(entrySubject(t.provider, t.model), now);
      return {
        provider: t.provider,
        model: t.model,
        // An ordered list without priorities: each entry its own, in order.
        priority: t.priority ?? i,
        weight: t.weight ?? 1,
        cost: t.cost ?? null,
        allowLoss: t.allowLoss === true,
        atLoss: entryAtLoss(deps.catalog, modelId, t),
        state: deps.routePlanner.entryState(t.provider, t.model, now),
        lastError: record?.lastError ?? null,
        lastErrorAt: iso(record?.lastErrorAt ?? null),
        callsLastHour: calls[i] ?? 0,
        share: total === 0 ? 0 : (calls[i] ?? 0) / total,
        keys: provider ? provider.keys.filter((k) => k.hint !== '').map((k) => ({ id: k.id, hint: k.hint, state: deps.routePlanner.keyState(provider, k, now) })) : [],
      };
    }),
  };
}

/** Whether an entry's cost is above the model's price now (for media: on some tier). */
export function entryAtLoss(catalog: Catalog, modelId: string, entry: RouteTarget): boolean {
  if (!entry.cost) return false;
  const chat = catalog.chat(modelId);
  if (chat) return chatEntryAtLoss(entry, chat);
  const published = catalog.get(modelId);
  if (!published) return false;
  return mediaEntryAtLossOnAnyTier(entry, new Map(published.pricing.map((t) => [t.key, usdToMicro(t.price)])));
}
