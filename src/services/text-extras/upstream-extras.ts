/**
 * The embeddings and token-count adapters of the configured providers, built once per provider on
 * first use (embedding-provider.ts says which types have which). They share one upstream client of
 * their own (the chat adapters' settings), also created on first use, closed with the gateway.
 */
import type { UpstreamHttpClient } from '../../adapters/outbound/upstream-http-client.ts';
import type { ProviderConfig } from '../../config/config.types.ts';
import { FILE_KEY_ID } from '../../domain/upstreams/live-upstreams.ts';
import type { CpuPool } from '../../ports/cpu-pool.port.ts';
import type { EmbeddingProvider, TokenCounter } from '../../providers/chat/embedding-provider.ts';
import { createEmbeddingProvider } from '../../providers/registries/embeddings.registry.ts';
import { createTokenCounter } from '../../providers/registries/token-counters.registry.ts';
import { createChatUpstreamClient } from '../../providers/chat/chat-upstream-client.ts';
import type { ProviderLookup } from '../upstreams/route-planner.ts';

export class UpstreamExtras {
  readonly #upstreams: ProviderLookup;
  readonly #cpu: CpuPool | undefined;
  readonly #embedders = new Map<string, EmbeddingProvider | undefined>();
  readonly #counters = new Map<string, TokenCounter | undefined>();
  #http: UpstreamHttpClient | undefined;

  /** `cpu`: where large prompts are counted and large upstream answers read (none: on the event loop, for unit tests). */
  constructor(upstreams: ProviderLookup, cpu?: CpuPool) {
    this.#upstreams = upstreams;
    this.#cpu = cpu;
  }

  /** The embeddings adapter of a provider's key; undefined when its type has none. */
  embedder(name: string, keyId: string = FILE_KEY_ID): EmbeddingProvider | undefined {
    const id = `${name}\u0000${keyId}`;
    if (!this.#embedders.has(id)) {
      const config = this.#configOf(name, keyId);
      this.#embedders.set(id, config ? createEmbeddingProvider(config, () => this.#client(), this.#cpu) : undefined);
    }
    return this.#embedders.get(id);
  }

  /** The token counter of a provider's key; undefined when its upstream cannot count. */
  counter(name: string, keyId: string = FILE_KEY_ID): TokenCounter | undefined {
    const id = `${name}\u0000${keyId}`;
    if (!this.#counters.has(id)) {
      const config = this.#configOf(name, keyId);
      this.#counters.set(id, config ? createTokenCounter(config, () => this.#client(), this.#cpu) : undefined);
    }
    return this.#counters.get(id);
  }

  /** A live change of these providers: their adapters are built again on next use. */
  forgetProviders(names: Iterable<string>): void {
    for (const name of names) {
      for (const cache of [this.#embedders, this.#counters]) {
        for (const id of [...cache.keys()]) if (id.startsWith(`${name}\u0000`)) cache.delete(id);
      }
    }
  }

  #configOf(name: string, keyId: string): ProviderConfig | undefined {
    const served = this.#upstreams.provider(name);
    if (!served) return undefined;
    const key = served.keys.find((k) => k.id === keyId) ?? served.keys[0];
    return { type: served.type, baseUrl: served.baseUrl, apiKey: key?.secret, timeoutMs: served.timeoutMs, concurrency: served.concurrency, options: served.options };
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
