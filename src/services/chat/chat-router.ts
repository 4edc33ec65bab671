/**
 * Which upstreams serve a text model, in order: the operator's routes for it (config `routes`), or the
 * built-in `local` provider when it has none (decision 13). Adapters are built once per configured
 * provider, on first use, by the chat provider registry, which owns the shared undici Agent.
 */
import type { Config, RouteTarget } from '../../config/config.types.ts';
import type { ChatProvider } from '../../providers/chat/chat-provider.ts';
import type { ChatProviderRegistry } from '../../providers/registries/chat.registry.ts';
import { orderRoutes } from '../../domain/routing/route-order.ts';

export class ChatRouter {
  readonly #config: Pick<Config, 'routes' | 'providers'>;
  readonly #registry: ChatProviderRegistry;
  readonly #providers = new Map<string, ChatProvider | undefined>();
  readonly #defaults = new Map<string, RouteTarget[]>();

  constructor(config: Pick<Config, 'routes' | 'providers'>, registry: ChatProviderRegistry) {
    this.#config = config;
    this.#registry = registry;
  }

  /**
   * The routes of a model in the order this request tries them (never empty): by priority, weighted
   * at random within one (issue 32); a plain ordered list is returned as it is.
   */
  routes(modelId: string): RouteTarget[] {
    return orderRoutes(this.configuredRoutes(modelId));
  }

  /** Every route of a model as the operator listed them (never empty), whatever order a request would try them in. */
  configuredRoutes(modelId: string): RouteTarget[] {
    const configured = this.#config.routes[modelId];
    if (configured && configured.length > 0) return configured;
    let fallback = this.#defaults.get(modelId);
    if (!fallback) {
      fallback = [{ provider: 'local', model: modelId }];
      this.#defaults.set(modelId, fallback);
    }
    return fallback;
  }

  /** The adapter of a configured provider; undefined when its type has no chat style (a media-only upstream). */
  provider(name: string): ChatProvider | undefined {
    if (this.#providers.has(name)) return this.#providers.get(name);
    const config = this.#config.providers[name];
    const provider = config && this.#registry.has(config.type) ? this.#registry.create(config) : undefined;
    this.#providers.set(name, provider);
    return provider;
  }

  /** The type of a provider, for messages. */
  providerType(name: string): string | undefined {
    return this.#config.providers[name]?.type;
  }

  async close(): Promise<void> {
    await this.#registry.close();
  }
}
