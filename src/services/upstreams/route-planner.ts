/**
 * Health-aware selection (issue 32, item 3): which route entries and keys a request tries, in which
 * order. Entries go by priority, weighted within one (route-order.ts); within an entry, the provider's
 * keys go weighted the same way. Then health: what is disabled (the provider, the key, by the operator
 * or by an auth or quota failure) is left out; what is cooling goes after everything healthy, so a
 * cooling upstream is still tried when nothing else is left, and its first call after the cooling is
 * the half-open trial. The health board answers from memory: planning never waits.
 */
import type { RouteTarget } from '../../config/config.types.ts';
import { orderRoutes } from '../../domain/routing/route-order.ts';
import { entrySubject, keySubject } from '../../domain/upstreams/health-subjects.ts';
import { FILE_KEY_ID, type UpstreamKey, type UpstreamProvider } from '../../domain/upstreams/live-upstreams.ts';
import type { UpstreamFailure, UpstreamHealthBoard, UpstreamState } from '../../ports/upstream-health.port.ts';
import type { TrafficTally } from '../../ports/traffic-tally.port.ts';

/** One try: a route entry with the key it uses. */
export interface PlannedAttempt extends RouteTarget {
  keyId: string;
}

/** What the planner reads of the served providers (the directory). */
export interface ProviderLookup {
  provider(name: string): UpstreamProvider | undefined;
}

export class RoutePlanner {
  readonly #providers: ProviderLookup;
  readonly #board: UpstreamHealthBoard;
  readonly #random: () => number;
  /** Calls per entry and key in the last hour, for the operator; absent: not counted. */
  readonly traffic: TrafficTally | undefined;

  constructor(providers: ProviderLookup, board: UpstreamHealthBoard, random: () => number = Math.random, traffic?: TrafficTally) {
    this.#providers = providers;
    this.#board = board;
    this.#random = random;
    this.traffic = traffic;
  }

  get board(): UpstreamHealthBoard {
    return this.#board;
  }

  /**
   * Every (entry, key) a synchronous request may try, in order. A provider the directory does not
   * know stays in, with the file key, so that the caller reports it as it always has.
   */
  plan(targets: RouteTarget[], now: number = Date.now()): PlannedAttempt[] {
    const healthy: PlannedAttempt[] = [];
    const cooling: PlannedAttempt[] = [];
    for (const target of orderRoutes(targets, this.#random)) {
      const provider = this.#providers.provider(target.provider);
      if (!provider) {
        healthy.push({ ...target, keyId: FILE_KEY_ID });
        continue;
      }
      if (!provider.enabled) continue;
      const entry = this.#board.state(entrySubject(target.provider, target.model), now);
      if (entry === 'disabled') continue;
      for (const key of this.#keyOrder(provider)) {
        const state = worse(entry, this.#board.state(keySubject(provider.name, key.id), now));
        if (state === 'disabled') continue;
        (state === 'healthy' ? healthy : cooling).push({ ...target, keyId: key.id });
      }
    }
    return cooling.length === 0 ? healthy : healthy.concat(cooling);
  }

  /**
   * The route entries of a task in the order its attempts try them (media: ordered once at create,
   * the key is chosen at each dispatch): disabled entries left out, cooling ones last.
   */
  orderEntries(targets: RouteTarget[], now: number = Date.now()): RouteTarget[] {
    const healthy: RouteTarget[] = [];
    const cooling: RouteTarget[] = [];
    for (const target of orderRoutes(targets, this.#random)) {
      const state = this.entryState(target.provider, target.model, now);
      if (state === 'disabled') continue;
      (state === 'healthy' ? healthy : cooling).push(target);
    }
    return cooling.length === 0 ? healthy : healthy.concat(cooling);
  }

  /**
   * An entry's state as the operator sees it: disabled when the provider is, or every key is;
   * cooling when the entry is, or every usable key is; else healthy. An unknown provider is healthy
   * (the caller says it is not configured).
   */
  entryState(providerName: string, upstreamModel: string, now: number = Date.now()): UpstreamState {
    const provider = this.#providers.provider(providerName);
    if (!provider) return 'healthy';
    if (!provider.enabled) return 'disabled';
    const entry = this.#board.state(entrySubject(providerName, upstreamModel), now);
    if (entry === 'disabled') return 'disabled';
    let best: UpstreamState = 'disabled';
    for (const key of provider.keys) {
      const state = this.keyState(provider, key, now);
      if (state === 'healthy') best = 'healthy';
      else if (state === 'cooling' && best === 'disabled') best = 'cooling';
    }
    return worse(entry, best);
  }

  /** A key's state: disabled when the operator switched it off, else what the board says. */
  keyState(provider: UpstreamProvider, key: UpstreamKey, now: number = Date.now()): UpstreamState {
    if (!key.enabled) return 'disabled';
    return this.#board.state(keySubject(provider.name, key.id), now);
  }

  /** The key a media dispatch uses now: a healthy one by weight, else a cooling one; undefined when every key is off. */
  pickKey(providerName: string, now: number = Date.now()): UpstreamKey | undefined {
    const provider = this.#providers.provider(providerName);
    if (!provider) return undefined;
    let cooling: UpstreamKey | undefined;
    for (const key of this.#keyOrder(provider)) {
      const state = this.#board.state(keySubject(provider.name, key.id), now);
      if (state === 'healthy') return key;
      if (state === 'cooling') cooling ??= key;
    }
    return cooling;
  }

  /**
   * The key a media dispatch of this provider uses, or why none can be used (the provider or every
   * key is switched off or disabled); undefined for a provider the directory does not serve.
   */
  chooseKey(providerName: string, now: number = Date.now()): { keyId: string } | { refused: string } | undefined {
    const provider = this.#providers.provider(providerName);
    if (!provider) return undefined;
    if (!provider.enabled) return { refused: `provider ${providerName} is switched off` };
    const key = this.pickKey(providerName, now);
    return key ? { keyId: key.id } : { refused: `every key of provider ${providerName} is switched off or disabled` };
  }

  /**
   * Tells the board how a call went. Auth, quota and rate limits are the key's; a transient failure
   * (5xx, time-out) counts against the key and the entry, and a success heals both.
   */
  report(attempt: { provider: string; model: string; keyId: string }, failure: UpstreamFailure | undefined, now: number = Date.now()): void {
    const key = keySubject(attempt.provider, attempt.keyId);
    const entry = entrySubject(attempt.provider, attempt.model);
    this.traffic?.count(key, now);
    this.traffic?.count(entry, now);
    if (failure === undefined) {
      this.#board.succeeded(key, now);
      this.#board.succeeded(entry, now);
      return;
    }
    this.#board.failed(key, failure, now);
    if (failure.kind === 'transient') this.#board.failed(entry, failure, now);
  }

  /** The provider's enabled keys, weighted at random (a single key costs nothing). */
  #keyOrder(provider: UpstreamProvider): UpstreamKey[] {
    const keys = provider.keys;
    if (keys.length === 1) return (keys[0] as UpstreamKey).enabled ? keys : [];
    return orderRoutes(
      keys.filter((k) => k.enabled).map((k) => ({ key: k, priority: 0, weight: k.weight })),
      this.#random,
    ).map((k) => k.key);
  }
}

function worse(a: UpstreamState, b: UpstreamState): UpstreamState {
  if (a === 'disabled' || b === 'disabled') return 'disabled';
  if (a === 'cooling' || b === 'cooling') return 'cooling';
  return 'healthy';
}
