/**
 * The media adapters of the served providers, one per provider key (issue 32, item 1), built on first
 * use from the directory's setting. A live change of a provider retires its adapters: the next call
 * builds them from the new setting, while calls under way finish on the old ones, which are closed
 * with the gateway.
 */
import type { GuardedHttpClient } from '../../adapters/outbound/guarded-http-client.ts';
import { FILE_KEY_ID } from '../../domain/upstreams/live-upstreams.ts';
import type { MediaProvider } from '../../providers/media/media-provider.ts';
import { createMediaProvider, isMediaProviderType } from '../../providers/registries/media.registry.ts';
import type { ProviderLookup } from './route-planner.ts';

export class MediaProviderPool {
  readonly #upstreams: ProviderLookup;
  readonly #guardedHttp: GuardedHttpClient;
  /** By provider, then key id. */
  readonly #built = new Map<string, Map<string, MediaProvider>>();
  readonly #retired: MediaProvider[] = [];

  constructor(upstreams: ProviderLookup, guardedHttp: GuardedHttpClient) {
    this.#upstreams = upstreams;
    this.#guardedHttp = guardedHttp;
  }

  /**
   * The adapter of a provider's key (absent or unknown: its first key); undefined when the provider is
   * not served or its style has no media side.
   */
  get(name: string, keyId: string | null = null): MediaProvider | undefined {
    const served = this.#upstreams.provider(name);
    if (!served || !isMediaProviderType(served.type)) return undefined;
    const key = served.keys.find((k) => k.id === (keyId ?? FILE_KEY_ID)) ?? served.keys[0];
    const id = key?.id ?? FILE_KEY_ID;
    let byKey = this.#built.get(name);
    const built = byKey?.get(id);
    if (built) return built;
    const provider = createMediaProvider(
      name,
      { type: served.type, baseUrl: served.baseUrl, apiKey: key?.secret, timeoutMs: served.timeoutMs, concurrency: served.concurrency, options: served.options },
      { guardedHttp: this.#guardedHttp },
    );
    if (!byKey) {
      byKey = new Map();
      this.#built.set(name, byKey);
    }
    byKey.set(id, provider);
    return provider;
  }

  /** A live change of these providers: their adapters are built again on next use. */
  forgetProviders(names: Iterable<string>): void {
    for (const name of names) {
      const byKey = this.#built.get(name);
      if (!byKey) continue;
      this.#retired.push(...byKey.values());
      this.#built.delete(name);
    }
  }

  async close(): Promise<void> {
    const all = [...this.#retired, ...[...this.#built.values()].flatMap((m) => [...m.values()])];
    this.#retired.length = 0;
    this.#built.clear();
    for (const provider of all) await provider.close?.();
  }
}
