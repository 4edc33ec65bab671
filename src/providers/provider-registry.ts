/**
 * The one registry shape of every provider kind (media, chat, embeddings, token counters, payments):
 * a table from a provider `type` to the factory that builds its adapter from its own config and what
 * the composition root shares with it (`deps`: the HTTP client, the guarded client, the CPU pool, …).
 * Each kind's table is one file under `registries/`; adding a provider is its file and one line there.
 */
export type ProviderFactory<Config, Deps, Provider> = (config: Config, deps: Deps) => Provider;

/** A kind's table as written: `type: factory`, one line per provider. */
export type ProviderFactories<Config, Deps, Provider> = Readonly<Record<string, ProviderFactory<Config, Deps, Provider>>>;

export class ProviderRegistry<Config, Deps, Provider> {
  // A Map, not the table itself: a type such as `toString` or `__proto__` must not find a factory.
  readonly #factories: ReadonlyMap<string, ProviderFactory<Config, Deps, Provider>>;

  constructor(factories: ProviderFactories<Config, Deps, Provider>) {
    this.#factories = new Map(Object.entries(factories));
  }

  has(type: string): boolean {
    return this.#factories.has(type);
  }

  /** The known types, sorted. */
  types(): string[] {
    return [...this.#factories.keys()].sort();
  }

  /** The factory of a type; undefined when unknown (each kind reports that as its own configuration error). */
  factory(type: string): ProviderFactory<Config, Deps, Provider> | undefined {
    return this.#factories.get(type);
  }

  /** The adapter of a type; undefined when the kind has none for it (a side only some styles offer: embeddings, counting). */
  createIfKnown(type: string, config: Config, deps: Deps): Provider | undefined {
    return this.#factories.get(type)?.(config, deps);
  }
}
