/**
 * Maps a provider `type` (config `providers.<name>.type`) to the factory of its chat adapter. The
 * registry owns the provider HTTP client the HTTP styles share (one pool of keep-alive connections),
 * created on first use, so that building providers opens nothing until a request is made.
 */
import { UpstreamHttpClient } from '../../adapters/outbound/upstream-http-client.ts';
import type { ProviderConfig } from '../../config/config.types.ts';
import { type ProviderFactory, ProviderRegistry } from '../provider-registry.ts';
import { createAnthropicMessagesProvider } from './anthropic/anthropic-messages.provider.ts';
import type { ChatProvider } from './chat-provider.ts';
import { createLocalChatProvider } from './local/local-chat.provider.ts';
import { createOpenAiBaseProvider } from './open-ai-base/open-ai-base.provider.ts';
import { OPENAI_COMPATIBLE_VENDORS } from './open-ai-base/openai-compatible.vendors.ts';

export interface ChatProviderDeps {
  /** The HTTP client of upstream calls (the registry's shared one by default). */
  http: UpstreamHttpClient;
  /** Random draws of the local provider's failure injection. */
  random?: () => number;
}

export type ChatProviderFactory = ProviderFactory<ProviderConfig, ChatProviderDeps, ChatProvider>;

/**
 * The client all chat adapters share. Keep-alive reuses connections across requests; `allowH2`
 * (undici's default) multiplexes on vendors that offer HTTP/2. Pipelining stays at 1: a streamed
 * answer can last minutes, and every request pipelined behind it on the same HTTP/1.1 connection
 * would wait for it (head-of-line blocking); more connections serve throughput better. The time-outs
 * of a call are per attempt (`UpstreamAttempt`), from each provider's `timeoutMs`.
 */
export function createChatUpstreamClient(): UpstreamHttpClient {
  return new UpstreamHttpClient({
    timeoutMs: 300_000,
    keepAliveMs: 30_000,
    keepAliveMaxMs: 300_000,
    pipelining: 1,
    connectTimeoutMs: 10_000,
    userAgent: 'Switchboard/0.1 (+chat)',
  });
}

export class ChatProviderRegistry extends ProviderRegistry<ProviderConfig, ChatProviderDeps, ChatProvider> {
  #shared: UpstreamHttpClient | undefined;
  readonly #given: UpstreamHttpClient | undefined;

  /** `http` replaces the shared client (tests, a proxy). */
  constructor(factories: Record<string, ChatProviderFactory> = {}, http?: UpstreamHttpClient) {
    super(factories);
    this.#given = http;
  }

  /** Builds the adapter for one configured provider; an unknown type is a configuration error. */
  create(config: ProviderConfig, deps: Partial<ChatProviderDeps> = {}): ChatProvider {
    const factory = this.factory(config.type);
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

/** The registry with the built-in chat styles: the OpenAI-compatible vendors (`openai`), `anthropic`, `local`. */
export function createChatProviderRegistry(http?: UpstreamHttpClient): ChatProviderRegistry {
  const openAiCompatible = Object.entries(OPENAI_COMPATIBLE_VENDORS).map(
    ([type, vendor]): [string, ChatProviderFactory] => [type, (config, deps) => createOpenAiBaseProvider(vendor, config, deps.http)],
  );
  return new ChatProviderRegistry(
    {
      ...Object.fromEntries(openAiCompatible),
      anthropic: (config, deps) => createAnthropicMessagesProvider(config, deps.http),
      local: (config, deps) => createLocalChatProvider(config, deps.random === undefined ? {} : { random: deps.random }),
    },
    http,
  );
}
