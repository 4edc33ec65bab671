/**
 * One registry shape for every kind of provider (media, chat, payments): a provider `type` names the
 * factory that builds its adapter from its own config and what the composition root shares with it
 * (`deps`: the HTTP client, the guarded client, …). Adding a provider is its file and one entry in
 * its kind's table.
 */
export type ProviderFactory<Config, Deps, Provider> = (config: Config, deps: Deps) => Provider;

export class ProviderRegistry<Config, Deps, Provider> {
  readonly #factories = new Map<string, ProviderFactory<Config, Deps, Provider>>();

  constructor(factories: Readonly<Record<string, ProviderFactory<Config, Deps, Provider>>> = {}) {
    for (const [type, factory] of Object.entries(factories)) this.#factories.set(type, factory);
  }

  register(type: string, factory: ProviderFactory<Config, Deps, Provider>): void {
    this.#factories.set(type, factory);
  }

  has(type: string): boolean {
    return this.#factories.has(type);
  }

  types(): string[] {
    return [...this.#factories.keys()].sort();
  }

  /** The factory of a type; undefined when unknown (each kind reports that as its own configuration error). */
  factory(type: string): ProviderFactory<Config, Deps, Provider> | undefined {
    return this.#factories.get(type);
  }
}
