/**
 * Which upstreams serve a text model, in order: the operator's routes for it (the config file's or the
 * live ones, upstream-directory.ts), or the built-in `local` provider when it has none (decision 13),
 * each entry with the keys of its provider, health-aware (route-planner.ts). Adapters are built per
 * provider key, on first use, by the chat provider registry, which owns the shared undici Agent; a
 * live change of a provider drops its adapters, and the next request builds them from the new setting.
 */
import type { ProviderConfig, RouteTarget } from '../../config/config.types.ts';
import { withoutLossFailovers } from '../../domain/routing/route-cost.ts';
import { FILE_KEY_ID } from '../../domain/upstreams/live-upstreams.ts';
import type { ChatProvider } from '../../providers/chat/chat-provider.ts';
import type { ChatProviderRegistry } from '../../providers/registries/chat.registry.ts';
import type { PlannedAttempt, ProviderLookup, RoutePlanner } from '../upstreams/route-planner.ts';

/** What the router reads of the served upstreams. */
export interface RoutedUpstreams extends ProviderLookup {
  /** A model's own route entries; undefined when it has none. */
  targets(modelId: string): RouteTarget[] | undefined;
}

export class ChatRouter {
  readonly #upstreams: RoutedUpstreams;
  readonly #registry: ChatProviderRegistry;
  readonly #planner: RoutePlanner;
  /** By provider, then key id. */
  readonly #providers = new Map<string, Map<string, ChatProvider | undefined>>();
  readonly #defaults = new Map<string, RouteTarget[]>();

  readonly #atLoss: ((modelId: string, entry: RouteTarget) => boolean) | undefined;

  /** `atLoss`: whether an entry costs more than the model's price (no failover onto it unless allowed). */
  constructor(upstreams: RoutedUpstreams, registry: ChatProviderRegistry, planner: RoutePlanner, atLoss?: (modelId: string, entry: RouteTarget) => boolean) {
    this.#upstreams = upstreams;
    this.#registry = registry;
    this.#planner = planner;
    this.#atLoss = atLoss;
  }

  /**
   * The (entry, key) pairs of a model in the order this request tries them: by priority, weighted at
   * random within one (issue 32), healthy before cooling, disabled left out. Empty when every route
   * is disabled.
   */
  routes(modelId: string): PlannedAttempt[] {
    const planned = this.#planner.plan(this.configuredRoutes(modelId));
    const atLoss = this.#atLoss;
    return atLoss ? withoutLossFailovers(planned, (entry) => atLoss(modelId, entry)) : planned;
  }

  /** Every route of a model as the operator listed them (never empty), whatever order a request would try them in. */
  configuredRoutes(modelId: string): RouteTarget[] {
    const configured = this.#upstreams.targets(modelId);
    if (configured && configured.length > 0) return configured;
    let fallback = this.#defaults.get(modelId);
    if (!fallback) {
      fallback = [{ provider: 'local', model: modelId }];
      this.#defaults.set(modelId, fallback);
    }
    return fallback;
  }

  /**
   * The adapter of a provider's key (by default the key a new call would pick); undefined when its
   * type has no chat style (a media-only upstream) or the provider is unknown.
   */
  provider(name: string, keyId?: string): ChatProvider | undefined {
    const id = keyId ?? this.#planner.pickKey(name)?.id ?? FILE_KEY_ID;
    let byKey = this.#providers.get(name);
    if (byKey?.has(id)) return byKey.get(id);
    const served = this.#upstreams.provider(name);
    const key = served?.keys.find((k) => k.id === id) ?? served?.keys[0];
    let provider: ChatProvider | undefined;
    if (served && key && this.#registry.has(served.type)) {
      const config: ProviderConfig = { type: served.type, baseUrl: served.baseUrl, apiKey: key.secret, timeoutMs: served.timeoutMs, concurrency: served.concurrency, options: served.options };
      provider = this.#registry.create(config);
    }
    if (!byKey) {
      byKey = new Map();
      this.#providers.set(name, byKey);
    }
    byKey.set(id, provider);
    return provider;
  }

  /** The type of a provider, for messages. */
  providerType(name: string): string | undefined {
    return this.#upstreams.provider(name)?.type;
  }

  /** Reports how a call of an attempt went to the health board. */
  get planner(): RoutePlanner {
    return this.#planner;
  }

  /** A live change of these providers: their adapters are built again on next use (calls under way keep theirs). */
  forgetProviders(names: Iterable<string>): void {
    for (const name of names) this.#providers.delete(name);
  }

  async close(): Promise<void> {
    await this.#registry.close();
  }
}
