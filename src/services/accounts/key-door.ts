/**
 * The limits an API key carries that are checked at the door of a chat request or a media create
 * (issue 21, item 15; the spend cap is the ledger's): the model allow-list (403), concurrent requests
 * (429) and requests per minute (429 with Retry-After, through the rate-limiter port: Redis shared by
 * every process in scale-out, this process's memory without it).
 *
 * Concurrency counts the key's requests in flight (a chat request until it has settled: for a client
 * that left, until its upstream call, still read for its usage, has ended; a create until it answers) through the concurrency-limiter port: every process's in scale-out (Redis leases),
 * this process's alone embedded or while Redis is away; plus, for media, the key's tasks not finished
 * in the store. Only a key with a concurrency limit takes a lease (no Redis call for the others).
 *
 * Every route that spends or can lead to spending passes it (chat, responses, messages, embeddings,
 * count_tokens, media creates, storage subscribe), and so does each operation an agent run dispatches
 * (`admitRunOperation`: every model call and generation, against the key that started the run, at
 * dispatch time; the message that starts a run is counted by its operations, not itself).
 */
import { limitsOfRow } from '../../domain/api-key-limit-columns.ts';
import { type ApiKeyLimits, keyAllowsModel } from '../../domain/api-key-limits.ts';
import { AppError } from '../../domain/errors.ts';
import type { AccountStore } from '../../ports/account-store.port.ts';
import type { ConcurrencyLimiter } from '../../ports/concurrency-limiter.port.ts';
import { type RateLimiter, retryAfterSeconds } from '../../ports/rate-limiter.port.ts';
import type { StoreTransaction } from '../../ports/store-transaction.port.ts';
import type { TokenBudget } from '../../ports/token-budget.port.ts';
import type { AccountPorts } from './accounts.service.ts';
import type { ApiKeyAuthenticator, KeyAccountLimit } from './api-key-authenticator.ts';

export type DoorKind = 'chat' | 'media';

/** What the agent engine needs of the door (a port, so the engine does not build one). */
export interface RunOperationDoor {
  admitRunOperation(keyId: string | null, model: string, kind: DoorKind): Promise<Release>;
}

/** Gives the admission back (idempotent: a second call does nothing). */
export type Release = () => void;

/** A text request's worst case taken from its key's tokens per minute; `settle` gives back what it did not use (once). */
export interface TokenReservation {
  settle(usedTokens: number): void;
}

/** What the chat service needs of the door: the tokens-per-minute reservation before its hold. */
export interface TokenDoor {
  /** Synchronous for a key known to have no such limit (the usual case: no await on the hot path). */
  reserveTokens(keyId: string | undefined, tokens: number, model: string): TokenReservation | Promise<TokenReservation>;
}

const NO_RESERVATION: TokenReservation = { settle: () => {} };

const NOTHING_TO_RELEASE: Release = () => {};
const MINUTE_MS = 60_000;

export class KeyDoor implements TokenDoor {
  readonly #accounts: AccountStore;
  /** The store outside any transaction, taken once (the door is on every request's path). */
  readonly #db: StoreTransaction;
  readonly #limiter: RateLimiter;
  readonly #authenticator: ApiKeyAuthenticator;
  readonly #concurrency: ConcurrencyLimiter;
  readonly #tokens: TokenBudget;

  constructor(ports: AccountPorts, limiter: RateLimiter, authenticator: ApiKeyAuthenticator, concurrency: ConcurrencyLimiter, tokens: TokenBudget) {
    this.#accounts = ports.accounts;
    this.#db = ports.uow.direct;
    this.#limiter = limiter;
    this.#authenticator = authenticator;
    this.#concurrency = concurrency;
    this.#tokens = tokens;
  }

  /**
   * Takes a text request's worst case (its prompt estimate plus max_tokens) from its key's tokens per
   * minute (issue 33, item 6), before its hold: 429 with Retry-After when the minute has no room for
   * it, 429 without when the request alone is above the limit (waiting would not help). The request
   * settles the reservation with the tokens it was billed for, and the rest goes back to its minute.
   */
  reserveTokens(keyId: string | undefined, tokens: number, model: string): TokenReservation | Promise<TokenReservation> {
    if (keyId === undefined) return NO_RESERVATION;
    const cached = this.#authenticator.limitsOf(keyId);
    const account = this.#authenticator.accountLimitOf(keyId);
    if (cached && cached.tokensPerMinute === null && account && account.tokensPerMinute === null) return NO_RESERVATION;
    return this.#reserve(keyId, tokens, model, cached, account);
  }

  /**
   * Takes the tokens from the key's minute and then from its account's (an organization's limit over
   * all its keys, issue 33 item 6); a refusal by the account gives the key's back. Settling gives what
   * was not used back to both.
   */
  async #reserve(keyId: string, tokens: number, model: string, cached: ApiKeyLimits | undefined, cachedAccount: KeyAccountLimit | undefined): Promise<TokenReservation> {
    const keyLimit = (cached ?? (await this.#limitsOf(keyId)))?.tokensPerMinute ?? null;
    const account = cachedAccount ?? (await this.#accountLimitOf(keyId));
    const taken: Array<{ bucket: string; window: number }> = [];
    const giveBack = (amount: number) => {
      for (const { bucket, window } of taken) void this.#tokens.giveBack(bucket, amount, window).catch(() => {});
    };
    if (keyLimit !== null) taken.push(await this.#take(`key-tpm:${keyId}`, tokens, keyLimit, model, 'this API key'));
    if (account && account.tokensPerMinute !== null) {
      try {
        taken.push(await this.#take(`account-tpm:${account.accountId}`, tokens, account.tokensPerMinute, model, 'this organization'));
      } catch (error) {
        giveBack(tokens);
        throw error;
      }
    }
    if (taken.length === 0) return NO_RESERVATION;
    let settled = false;
    return {
      settle: (usedTokens: number) => {
        if (settled) return;
        settled = true;
        const unused = tokens - Math.max(0, Math.min(tokens, usedTokens));
        if (unused > 0) giveBack(unused);
      },
    };
  }

  /** Takes `tokens` from a minute of `limit`, or throws the 429 that says whose limit it is. */
  async #take(bucket: string, tokens: number, limit: number, model: string, whose: string): Promise<{ bucket: string; window: number }> {
    if (tokens > limit) {
      throw new AppError('rate_limited', `Request too large for ${model}: it may use up to ${tokens} tokens (its prompt and max_tokens), and ${whose} allows ${counted(limit, 'token')} per minute. Lower max_tokens or shorten the prompt.`);
    }
    const verdict = await this.#tokens.take(bucket, tokens, limit);
    if (!verdict.allowed) {
      throw new AppError('rate_limited', `${whose} allows ${counted(limit, 'token')} per minute; ${verdict.used} are counted in this minute (running requests count their prompt and max_tokens until they finish) and this request may use up to ${tokens}`, {
        retryAfter: Math.max(1, Math.ceil(verdict.retryAfterMs / 1000)),
      });
    }
    return { bucket, window: verdict.window };
  }

  /** A key's account and its tokens per minute, from the store (a key not in the auth cache). */
  async #accountLimitOf(keyId: string): Promise<KeyAccountLimit | undefined> {
    const row = await this.#accounts.findKey(this.#db, keyId);
    const account = row ? await this.#accounts.findUser(this.#db, row.user_id) : undefined;
    return account ? { accountId: account.id, tokensPerMinute: account.tpm_limit === null || account.tpm_limit === undefined ? null : Number(account.tpm_limit) } : undefined;
  }

  /** Admits a request with `keyId` for `model`, or throws the refusal; release it when it ends. */
  async admit(keyId: string | undefined, model: string | undefined, kind: DoorKind): Promise<Release> {
    if (keyId === undefined) return NOTHING_TO_RELEASE;
    const limits = await this.#limitsOf(keyId);
    if (!limits) return NOTHING_TO_RELEASE;
    return this.#pass(keyId, limits, model, kind);
  }

  /**
   * Admits one operation of an agent run started with `keyId` (null: a dashboard session, no door).
   * The run outlives its request, so the key is read from the store, not the request's cache: a key
   * revoked or expired since is refused (403), and limits narrowed since apply to the next operation.
   */
  async admitRunOperation(keyId: string | null, model: string, kind: DoorKind): Promise<Release> {
    if (keyId === null) return NOTHING_TO_RELEASE;
    const row = await this.#accounts.findKey(this.#db, keyId);
    if (!row || row.revoked_at !== null) throw new AppError('forbidden', 'the API key that started this run was revoked');
    if (row.expires_at !== null && Number(row.expires_at) <= Date.now()) throw new AppError('forbidden', 'the API key that started this run has expired');
    return this.#pass(keyId, limitsOfRow(row), model, kind);
  }

  async #pass(keyId: string, limits: ApiKeyLimits, model: string | undefined, kind: DoorKind): Promise<Release> {
    if (model !== undefined && !keyAllowsModel(limits, model)) throw new AppError('forbidden', `this API key may not use the model ${JSON.stringify(model)}`, { param: 'model' });
    let release = NOTHING_TO_RELEASE;
    if (limits.concurrentGenerations !== null) {
      const running = kind === 'media' ? await this.#runningTasks(keyId) : 0;
      const verdict = await this.#concurrency.acquire(`key-concurrency:${keyId}`, limits.concurrentGenerations - running);
      if (!verdict.granted) throw new AppError('rate_limited', `this API key allows ${counted(limits.concurrentGenerations, 'concurrent request')}`);
      release = verdict.lease.release;
    }
    if (limits.requestsPerMinute !== null) {
      const verdict = await this.#limiter.hit(`key-rpm:${keyId}`, { max: limits.requestsPerMinute, windowMs: MINUTE_MS }).catch((error: unknown) => {
        release();
        throw error;
      });
      if (!verdict.allowed) {
        release();
        throw new AppError('rate_limited', `this API key allows ${counted(limits.requestsPerMinute, 'request')} per minute`, { retryAfter: retryAfterSeconds(verdict) });
      }
    }
    return release;
  }

  async #limitsOf(keyId: string): Promise<ApiKeyLimits | undefined> {
    const cached = this.#authenticator.limitsOf(keyId);
    if (cached) return cached;
    const row = await this.#accounts.findKey(this.#db, keyId);
    return row ? limitsOfRow(row) : undefined;
  }

  #runningTasks(keyId: string): Promise<number> {
    return this.#accounts.countUnfinishedTasksOfKey(this.#db, keyId);
  }

}

/** `1 request`, `3 requests`. */
function counted(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
