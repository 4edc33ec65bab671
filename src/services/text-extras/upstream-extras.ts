/**
 * The embeddings and token-count adapters of the configured providers, built once per provider on
 * first use (embedding-provider.ts says which types have which). They share one upstream client of
 * their own (the chat adapters' settings), also created on first use, closed with the gateway.
 */
import type { UpstreamHttpClient } from '../../adapters/outbound/upstream-http-client.ts';
import type { Config } from '../../config/config.types.ts';
import type { CpuPool } from '../../ports/cpu-pool.port.ts';
import type { EmbeddingProvider, TokenCounter } from '../../providers/chat/embedding-provider.ts';
import { createEmbeddingProvider } from '../../providers/registries/embeddings.registry.ts';
import { createTokenCounter } from '../../providers/registries/token-counters.registry.ts';
import { createChatUpstreamClient } from '../../providers/chat/chat-upstream-client.ts';

export class UpstreamExtras {
  readonly #config: Pick<Config, 'providers'>;
  readonly #cpu: CpuPool | undefined;
  readonly #embedders = new Map<string, EmbeddingProvider | undefined>();
  readonly #counters = new Map<string, TokenCounter | undefined>();
  #http: UpstreamHttpClient | undefined;

  /** `cpu`: where large prompts are counted and large upstream answers read (none: on the event loop, for unit tests). */
  constructor(config: Pick<Config, 'providers'>, cpu?: CpuPool) {
    this.#config = config;
    this.#cpu = cpu;
  }

  /** The embeddings adapter of a configured provider; undefined when its type has none. */
  embedder(name: string): EmbeddingProvider | undefined {
    if (!this.#embedders.has(name)) {
      const config = this.#config.providers[name];
      this.#embedders.set(name, config ? createEmbeddingProvider(config, () => this.#client(), this.#cpu) : undefined);
    }
    return this.#embedders.get(name);
  }

  /** The token counter of a configured provider; undefined when its upstream cannot count. */
  counter(name: string): TokenCounter | undefined {
    if (!this.#counters.has(name)) {
      const config = this.#config.providers[name];
      this.#counters.set(name, config ? createTokenCounter(config, () => this.#client(), this.#cpu) : undefined);
    }
    return this.#counters.get(name);
  }

  async close(): Promise<void> {
    const http = this.#http;
    this.#http = undefined;
    await http?.close();
  }

  #client(): UpstreamHttpClient {
    this.#http ??= createChatUpstreamClient();
    return this.#http;
  }
}
