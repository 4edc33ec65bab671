/**
 * A circuit breaker for a dependency that only helps (Redis hints, a cache): after a failure the
 * circuit opens and callers skip the dependency at once instead of waiting on it; once `openMs` has
 * passed, one call is let through to probe it (half-open), and its outcome closes or reopens the
 * circuit. So an outage costs each caller nothing but the first failed call per `openMs`.
 */
export type CircuitState = 'closed' | 'open' | 'half-open';

export interface CircuitBreakerOptions {
  /** How long the circuit stays open after a failure before one probe is let through. */
  openMs: number;
  now?: () => number;
  /** Told of every change of state (to log an outage once, not once per call). */
  onChange?: (state: CircuitState) => void;
}

export class CircuitBreaker {
  readonly #openMs: number;
  readonly #now: () => number;
  readonly #onChange: ((state: CircuitState) => void) | undefined;
  #state: CircuitState = 'closed';
  #openedAt = 0;
  #probing = false;

  constructor(options: CircuitBreakerOptions) {
    this.#openMs = options.openMs;
    this.#now = options.now ?? Date.now;
    this.#onChange = options.onChange;
  }

  get state(): CircuitState {
    if (this.#state === 'open' && this.#now() - this.#openedAt >= this.#openMs) this.#set('half-open');
    return this.#state;
  }

  /** True when a call may go through now: the circuit is closed, or this is the one half-open probe. */
  allow(): boolean {
    const state = this.state;
    if (state === 'closed') return true;
    if (state === 'half-open' && !this.#probing) {
      this.#probing = true;
      return true;
    }
    return false;
  }

  succeeded(): void {
    this.#probing = false;
    if (this.#state !== 'closed') this.#set('closed');
  }

  failed(): void {
    this.#probing = false;
    this.#openedAt = this.#now();
    if (this.#state !== 'open') this.#set('open');
  }

  /** Runs `call` when allowed, recording its outcome; `fallback` when the circuit is open. */
  async run<T>(call: () => Promise<T>, fallback: () => T): Promise<T> {
    if (!this.allow()) return fallback();
    try {
      const value = await call();
      this.succeeded();
      return value;
    } catch (error) {
      this.failed();
      throw error;
    }
  }

  #set(state: CircuitState): void {
    this.#state = state;
    this.#onChange?.(state);
  }
}
