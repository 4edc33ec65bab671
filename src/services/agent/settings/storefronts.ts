/**
 * Which storefront a request belongs to (SPEC: the server resolves identity and storefront). Our
 * choice: the request's host, through the config's `storefronts`; every other host gets the default
 * storefront. Settings, conversations and artifacts are isolated per storefront and per user.
 */
import type { StorefrontConfig } from '../../../config/config.types.ts';

export class Storefronts {
  readonly #byHost = new Map<string, StorefrontConfig>();
  readonly #default: StorefrontConfig;
  readonly #all: StorefrontConfig[];

  constructor(storefronts: StorefrontConfig[]) {
    const first = storefronts[0];
    if (!first) throw new Error('the configuration holds no storefront');
    this.#default = first;
    this.#all = storefronts;
    for (const storefront of storefronts) for (const host of storefront.hosts) this.#byHost.set(host, storefront);
  }

  /** `host` as the Host header (or :authority) gives it, port included or not. */
  resolve(host: string | undefined): StorefrontConfig {
    if (!host) return this.#default;
    const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : (host.split(':')[0] ?? host);
    return this.#byHost.get(name.toLowerCase()) ?? this.#default;
  }

  get(id: string): StorefrontConfig | undefined {
    return this.#all.find((s) => s.id === id);
  }
}
