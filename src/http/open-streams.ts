/**
 * The event streams this process holds open (agent conversation events, streamed chat answers), by
 * the credential that opened them. Two jobs:
 *
 * - A revoked API key or an ended dashboard session closes its streams at once: the revocation comes
 *   on the event bus from whichever process made it, and a re-check against the store every
 *   `recheckMs` catches a message the bus lost.
 * - A user holds at most `maxPerUser` agent event streams in this process (each costs a connection
 *   and buffers); one more is a 429 with the standard error body, before anything is written.
 */
import type { Logger } from 'pino';
import { AppError } from '../domain/errors.ts';
import type { EventBus } from '../ports/event-bus.port.ts';
import { type RevokedCredentials, subscribeRevoked } from '../services/accounts/credential-revocations.ts';

export interface StreamOwner {
  userId: string;
  /** The API key that opened the stream; undefined for a dashboard session. */
  keyId: string | undefined;
  sessionId: string | undefined;
}

/** One open stream: tell it how to close, and release it when it ends (either order is safe). */
export interface StreamLease {
  /** `close` runs at most once, when the stream's credential stops being valid. */
  onRevoke(close: (reason: string) => void): void;
  /**
   * `end` runs at most once, when the process shuts down: a stream the client resumes elsewhere (an
   * agent event stream, by Last-Event-ID) ends at once; one that does not register runs to its end.
   */
  onShutdown(end: () => void): void;
  release(): void;
}

/** Which of these credentials are no longer valid (revoked keys; sessions signed out or expired). */
export type CredentialCheck = (apiKeyIds: string[], sessionIds: string[]) => Promise<RevokedCredentials>;

interface Entry {
  owner: StreamOwner;
  counted: boolean;
  close: ((reason: string) => void) | undefined;
  /** Set once revoked; a closer given later is called at once. */
  revokedFor: string | undefined;
  end: (() => void) | undefined;
}

export interface OpenStreamsOptions {
  maxPerUser: number;
  check: CredentialCheck;
  logger: Logger;
  /** How often open streams' credentials are checked in the store (default 30 s). */
  recheckMs?: number;
}

const KEY_REVOKED = 'the API key this stream was opened with has been revoked';
const SESSION_ENDED = 'the session this stream was opened with has ended';

export class OpenStreams {
  readonly #entries = new Set<Entry>();
  readonly #countedByUser = new Map<string, number>();
  readonly #options: OpenStreamsOptions;
  #timer: NodeJS.Timeout | undefined;
  #unsubscribe: (() => Promise<void>) | undefined;
  #checking = false;
  #shuttingDown = false;

  constructor(options: OpenStreamsOptions) {
    this.#options = options;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Listens for revocations from every process. */
  async start(bus: EventBus): Promise<void> {
    this.#unsubscribe = await subscribeRevoked(bus, (revoked) => this.revoke(revoked));
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#unsubscribe?.().catch(() => {});
  }

  /**
   * Registers a stream about to be opened. `counted` streams count against the per-user cap: past it
   * this throws a 429 (rate_limited), so the caller must call it before writing anything.
   */
  open(owner: StreamOwner, options: { counted: boolean }): StreamLease {
    if (options.counted) {
      const open = this.#countedByUser.get(owner.userId) ?? 0;
      if (open >= this.#options.maxPerUser) {
        throw new AppError('rate_limited', `you have ${open} event streams open, the most allowed; close one before opening another`, { retryAfter: 5 });
      }
      this.#countedByUser.set(owner.userId, open + 1);
    }
    const entry: Entry = { owner, counted: options.counted, close: undefined, revokedFor: undefined, end: undefined };
    this.#entries.add(entry);
    this.#startTimer();
    let released = false;
    return {
      onRevoke: (close) => {
        entry.close = close;
        if (entry.revokedFor !== undefined) this.#runClose(entry, entry.revokedFor);
      },
      onShutdown: (end) => {
        entry.end = end;
        if (this.#shuttingDown) this.#runEnd(entry);
      },
      release: () => {
        if (released) return;
        released = true;
        this.#entries.delete(entry);
        if (entry.counted) {
          const left = (this.#countedByUser.get(owner.userId) ?? 1) - 1;
          if (left > 0) this.#countedByUser.set(owner.userId, left);
          else this.#countedByUser.delete(owner.userId);
        }
        if (this.#entries.size === 0) {
          clearInterval(this.#timer);
          this.#timer = undefined;
        }
      },
    };
  }

  /** The process is shutting down: ends every stream that asked to be ended then (onShutdown). */
  shutdown(): void {
    this.#shuttingDown = true;
    for (const entry of [...this.#entries]) this.#runEnd(entry);
  }

  /** Closes every stream opened with one of these credentials. */
  revoke(revoked: RevokedCredentials): void {
    const keys = new Set(revoked.apiKeyIds);
    const sessions = new Set(revoked.sessionIds);
    if (keys.size === 0 && sessions.size === 0) return;
    for (const entry of [...this.#entries]) {
      const { keyId, sessionId } = entry.owner;
      if (keyId !== undefined && keys.has(keyId)) this.#close(entry, KEY_REVOKED);
      else if (sessionId !== undefined && sessions.has(sessionId)) this.#close(entry, SESSION_ENDED);
    }
  }

  /** One look at the store for every open stream's credential (the net under a lost bus message). */
  async recheck(): Promise<void> {
    if (this.#checking || this.#entries.size === 0) return;
    this.#checking = true;
    try {
      const keyIds = new Set<string>();
      const sessionIds = new Set<string>();
      for (const { owner } of this.#entries) {
        if (owner.keyId !== undefined) keyIds.add(owner.keyId);
        else if (owner.sessionId !== undefined) sessionIds.add(owner.sessionId);
      }
      this.revoke(await this.#options.check([...keyIds], [...sessionIds]));
    } catch (error) {
      this.#options.logger.warn({ err: error }, 're-checking the credentials of open event streams failed; trying again later');
    } finally {
      this.#checking = false;
    }
  }

  #close(entry: Entry, reason: string): void {
    if (entry.revokedFor !== undefined) return;
    entry.revokedFor = reason;
    this.#runClose(entry, reason);
  }

  #runClose(entry: Entry, reason: string): void {
    const close = entry.close;
    entry.close = undefined;
    try {
      close?.(reason);
    } catch (error) {
      this.#options.logger.warn({ err: error }, 'closing an event stream failed');
    }
  }

  #runEnd(entry: Entry): void {
    const end = entry.end;
    entry.end = undefined;
    try {
      end?.();
    } catch (error) {
      this.#options.logger.warn({ err: error }, 'ending an event stream at shutdown failed');
    }
  }

  #startTimer(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => void this.recheck(), this.#options.recheckMs ?? 30_000);
    this.#timer.unref();
  }
}
