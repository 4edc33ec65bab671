/**
 * Testing a provider (issue 32, item 7): every key of it makes the cheapest real call its API style
 * offers, a few at a time under one deadline. What the test proves goes to the health board as a
 * real call's outcome would: a passing key is healthy again (a key disabled by an auth or quota
 * failure is re-enabled, as the issue asks), a refused one is disabled or cooled by the same rules.
 * The operator's own switch (a key switched off) is never changed by a test.
 */
import { keySubject } from '../../domain/upstreams/health-subjects.ts';
import type { UpstreamKey, UpstreamProvider } from '../../domain/upstreams/live-upstreams.ts';
import type { UpstreamHealthBoard } from '../../ports/upstream-health.port.ts';
import type { KeyCheckResult, KeyCheckTarget } from '../../providers/key-check.ts';

/** Keys tested at once: a pool of 64 keys is tested in 16 rounds, not 64 calls at once at one vendor. */
const AT_ONCE = 4;
/** The deadline of one key's call; the whole test ends within rounds × this. */
const KEY_TIMEOUT_MS = 10_000;

export interface ProviderTestDeps {
  provider(name: string): UpstreamProvider | undefined;
  board: UpstreamHealthBoard;
  check(target: KeyCheckTarget, signal: AbortSignal): Promise<KeyCheckResult>;
  /** Ends what `check` holds open (its connections). */
  close(): Promise<void>;
}

export interface KeyTestOutcome extends KeyCheckResult {
  keyId: string;
  hint: string;
  label: string | null;
}

export class ProviderTestService {
  readonly #deps: ProviderTestDeps;

  constructor(deps: ProviderTestDeps) {
    this.#deps = deps;
  }

  close(): Promise<void> {
    return this.#deps.close();
  }

  /** Undefined when no such provider is served. */
  async test(name: string, signal: AbortSignal): Promise<KeyTestOutcome[] | undefined> {
    const provider = this.#deps.provider(name);
    if (!provider) return undefined;
    const keys = provider.keys;
    const outcomes: KeyTestOutcome[] = new Array(keys.length);
    let next = 0;
    const lane = async (): Promise<void> => {
      for (let i = next++; i < keys.length; i = next++) outcomes[i] = await this.#testKey(provider, keys[i] as UpstreamKey, signal);
    };
    await Promise.all(Array.from({ length: Math.min(AT_ONCE, keys.length) }, lane));
    return outcomes;
  }

  async #testKey(provider: UpstreamProvider, key: UpstreamKey, signal: AbortSignal): Promise<KeyTestOutcome> {
    const result = await this.#deps.check({ type: provider.type, baseUrl: provider.baseUrl, secret: key.secret, options: provider.options, timeoutMs: Math.min(provider.timeoutMs, KEY_TIMEOUT_MS) }, signal);
    const subject = keySubject(provider.name, key.id);
    if (result.ok) await this.#deps.board.enable(subject);
    else if (result.kind) this.#deps.board.failed(subject, { kind: result.kind, message: result.error ?? 'the key test failed' });
    return { keyId: key.id, hint: key.hint, label: key.label, ...result };
  }
}
