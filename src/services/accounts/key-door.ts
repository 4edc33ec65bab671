/**
 * The limits an API key carries that are checked at the door of a chat request or a media create
 * (issue 21, item 15; the spend cap is the ledger's): the model allow-list (403), concurrent requests
 * (429) and requests per minute (429 with Retry-After, through the rate-limiter port: Redis shared by
 * every process in scale-out, this process's memory without it).
 *
 * Concurrency counts this process's requests in flight with the key (a chat request until its response
 * closes, a create until it answers) plus, for media, the key's tasks not finished in the store. The
 * in-flight count is taken synchronously at admission, so a burst on one process cannot pass it.
 */
import type { Kysely } from 'kysely';
import { limitsOfRow } from '../../adapters/db/repositories/api-key-limits.mapping.ts';
import { findApiKey } from '../../adapters/db/repositories/api-keys.repository.ts';
import type { Schema } from '../../adapters/db/schema.ts';
import { type ApiKeyLimits, keyAllowsModel } from '../../domain/api-key-limits.ts';
import { AppError } from '../../domain/errors.ts';
import { type RateLimiter, retryAfterSeconds } from '../../ports/rate-limiter.port.ts';
import type { ApiKeyAuthenticator } from './api-key-authenticator.ts';

export type DoorKind = 'chat' | 'media';

/** Gives the admission back (idempotent: a second call does nothing). */
export type Release = () => void;

const NOTHING_TO_RELEASE: Release = () => {};
const MINUTE_MS = 60_000;

export class KeyDoor {
  readonly #db: Kysely<Schema>;
  readonly #limiter: RateLimiter;
  readonly #authenticator: ApiKeyAuthenticator;
  readonly #inFlight = new Map<string, number>();

  constructor(db: Kysely<Schema>, limiter: RateLimiter, authenticator: ApiKeyAuthenticator) {
    this.#db = db;
    this.#limiter = limiter;
    this.#authenticator = authenticator;
  }

  /** Admits a request with `keyId` for `model`, or throws the refusal; release it when it ends. */
  async admit(keyId: string | undefined, model: string | undefined, kind: DoorKind): Promise<Release> {
    if (keyId === undefined) return NOTHING_TO_RELEASE;
    const limits = await this.#limitsOf(keyId);
    if (!limits) return NOTHING_TO_RELEASE;
    if (model !== undefined && !keyAllowsModel(limits, model)) throw new AppError('forbidden', `this API key may not use the model ${JSON.stringify(model)}`, { param: 'model' });
    const running = limits.concurrentGenerations !== null && kind === 'media' ? await this.#runningTasks(keyId) : 0;
    // From here to the increment nothing awaits: the in-flight count is exact within this process.
    const inFlight = this.#inFlight.get(keyId) ?? 0;
    if (limits.concurrentGenerations !== null && inFlight + running >= limits.concurrentGenerations) {
      throw new AppError('rate_limited', `this API key allows ${limits.concurrentGenerations} concurrent requests`);
    }
    this.#inFlight.set(keyId, inFlight + 1);
    let released = false;
    const release: Release = () => {
      if (released) return;
      released = true;
      const left = (this.#inFlight.get(keyId) ?? 1) - 1;
      if (left <= 0) this.#inFlight.delete(keyId);
      else this.#inFlight.set(keyId, left);
    };
    if (limits.requestsPerMinute !== null) {
      const verdict = await this.#limiter.hit(`key-rpm:${keyId}`, { max: limits.requestsPerMinute, windowMs: MINUTE_MS }).catch((error: unknown) => {
        release();
        throw error;
      });
      if (!verdict.allowed) {
        release();
        throw new AppError('rate_limited', `this API key allows ${limits.requestsPerMinute} requests per minute`, { retryAfter: retryAfterSeconds(verdict) });
      }
    }
    return release;
  }

  async #limitsOf(keyId: string): Promise<ApiKeyLimits | undefined> {
    const cached = this.#authenticator.limitsOf(keyId);
    if (cached) return cached;
    const row = await findApiKey(this.#db, keyId);
    return row ? limitsOfRow(row) : undefined;
  }

  async #runningTasks(keyId: string): Promise<number> {
    const row = await this.#db
      .selectFrom('tasks')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('api_key_id', '=', keyId)
      .where('status', 'in', ['not_started', 'processing'])
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}
