/**
 * Provider `type` (config `providers.<name>.type`) → chat adapter. `ChatProviderRegistry` is that
 * table with the provider HTTP client the HTTP styles share (one pool of keep-alive connections),
 * created on first use, so that building providers opens nothing until a request is made.
 */
import type { UpstreamHttpClient } from '../../adapters/outbound/upstream-http-client.ts';
import type { ProviderConfig } from '../../config/config.types.ts';
import { createAnthropicMessagesProvider } from '../chat/anthropic/anthropic-messages.provider.ts';
import type { ChatProvider } from '../chat/chat-provider.ts';
import { createChatUpstreamClient } from '../chat/chat-upstream-client.ts';
import { createLocalChatProvider } from '../chat/local/local-chat.provider.ts';
import { createOpenAiBaseProvider } from '../chat/open-ai-base/open-ai-base.provider.ts';
import { OPENAI_COMPATIBLE_VENDORS } from '../chat/open-ai-base/openai-compatible.vendors.ts';
import { type ProviderFactories, type ProviderFactory, ProviderRegistry } from '../provider-registry.ts';

export interface ChatProviderDeps {
  /** The HTTP client of upstream calls (the registry's shared one by default). */
  http: UpstreamHttpClient;
  /** Random draws of the local provider's failure injection. */
  random?: () => number;
}

export type ChatProviderFactory = ProviderFactory<ProviderConfig, ChatProviderDeps, ChatProvider>;

/** The built-in chat styles: the OpenAI-compatible vendors (`openai`), `anthropic`, `local`. */
export const CHAT_PROVIDER_FACTORIES: ProviderFactories<ProviderConfig, ChatProviderDeps, ChatProvider> = {
  ...Object.fromEntries(
    Object.entries(OPENAI_COMPATIBLE_VENDORS).map(([type, vendor]): [string, ChatProviderFactory] => [type, (config, deps) => createOpenAiBaseProvider(vendor, config, deps.http)]),
  ),
  anthropic: (config, deps) => createAnthropicMessagesProvider(config, deps.http),
  local: (config, deps) => createLocalChatProvider(config, deps.random === undefined ? {} : { random: deps.random }),
};

export class ChatProviderRegistry {
  readonly #table: ProviderRegistry<ProviderConfig, ChatProviderDeps, ChatProvider>;
  #shared: UpstreamHttpClient | undefined;
  readonly #given: UpstreamHttpClient | undefined;

  /** `http` replaces the shared client (tests, a proxy). */
  constructor(factories: ProviderFactories<ProviderConfig, ChatProviderDeps, ChatProvider> = CHAT_PROVIDER_FACTORIES, http?: UpstreamHttpClient) {
    this.#table = new ProviderRegistry(factories);
    this.#given = http;
  }

  has(type: string): boolean {
    return this.#table.has(type);
  }

  types(): string[] {
    return this.#table.types();
  }

  /** Builds the adapter for one configured provider; an unknown type is a configuration error. */
  create(config: ProviderConfig, deps: Partial<ChatProviderDeps> = {}): ChatProvider {
    const factory = this.#table.factory(config.type);
    if (!factory) throw new Error(`No chat adapter for provider type ${JSON.stringify(config.type)}; known: ${this.types().join(', ')}.`);
    return factory(config, { ...deps, http: deps.http ?? this.#sharedHttp() });
  }

  /** Closes the shared client's connections (process shutdown, end of a test). */
  async close(): Promise<void> {
    const shared = this.#shared;
    this.#shared = undefined;
    await shared?.close();
  }

  #sharedHttp(): UpstreamHttpClient {
    if (this.#given) return this.#given;
    this.#shared ??= createChatUpstreamClient();
    return this.#shared;
  }
}

/** The registry of the built-in chat styles. */
export function createChatProviderRegistry(http?: UpstreamHttpClient): ChatProviderRegistry {
  return new ChatProviderRegistry(CHAT_PROVIDER_FACTORIES, http);
}
