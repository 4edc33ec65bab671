/**
 * Maps a provider `type` (config `providers.<name>.type`) to the factory of its chat adapter. The
 * registry owns the undici Agent the HTTP styles share, created on first use, so that building
 * providers opens nothing until a request is made.
 */
import type { Agent, Dispatcher } from 'undici';
import type { ProviderConfig } from '../../config/config.types.ts';
import { createAnthropicMessagesProvider } from './anthropic/anthropic-messages.provider.ts';
import type { ChatProvider } from './chat-provider.ts';
import { createLocalChatProvider } from './local/local-chat.provider.ts';
import { createOpenAiChatProvider } from './openai/openai-chat.provider.ts';
import { createUpstreamAgent } from './upstream-http.ts';

export interface ChatProviderDeps {
  /** The HTTP dispatcher of upstream calls (the registry's shared Agent by default). */
  dispatcher: Dispatcher;
  /** Random draws of the local provider's failure injection. */
  random?: () => number;
}

export type ChatProviderFactory = (config: ProviderConfig, deps: ChatProviderDeps) => ChatProvider;

export class ChatProviderRegistry {
  readonly #factories = new Map<string, ChatProviderFactory>();
  #agent: Agent | undefined;
  readonly #dispatcher: Dispatcher | undefined;

  /** `dispatcher` replaces the shared Agent (tests, a proxy). */
  constructor(factories: Record<string, ChatProviderFactory> = {}, dispatcher?: Dispatcher) {
    for (const [type, factory] of Object.entries(factories)) this.#factories.set(type, factory);
    this.#dispatcher = dispatcher;
  }

  register(type: string, factory: ChatProviderFactory): void {
    this.#factories.set(type, factory);
  }

  has(type: string): boolean {
    return this.#factories.has(type);
  }

  types(): string[] {
    return [...this.#factories.keys()].sort();
  }

  /** Builds the adapter for one configured provider; an unknown type is a configuration error. */
  create(config: ProviderConfig, deps: Partial<ChatProviderDeps> = {}): ChatProvider {
    const factory = this.#factories.get(config.type);
    if (!factory) throw new Error(`No chat adapter for provider type ${JSON.stringify(config.type)}; known: ${this.types().join(', ')}.`);
    return factory(config, { ...deps, dispatcher: deps.dispatcher ?? this.#sharedDispatcher() });
  }

  /** Closes the shared Agent's connections (process shutdown, end of a test). */
  async close(): Promise<void> {
    const agent = this.#agent;
    this.#agent = undefined;
    await agent?.close();
  }

  #sharedDispatcher(): Dispatcher {
    if (this.#dispatcher) return this.#dispatcher;
    this.#agent ??= createUpstreamAgent();
    return this.#agent;
  }
}

/** The registry with the built-in chat styles: `openai`, `anthropic`, `local`. */
export function createChatProviderRegistry(dispatcher?: Dispatcher): ChatProviderRegistry {
  return new ChatProviderRegistry(
    {
      openai: (config, deps) => createOpenAiChatProvider(config, deps.dispatcher),
      anthropic: (config, deps) => createAnthropicMessagesProvider(config, deps.dispatcher),
      local: (config, deps) => createLocalChatProvider(config, deps.random === undefined ? {} : { random: deps.random }),
    },
    dispatcher,
  );
}
