/**
 * The clock the agent's expiries are measured by (attachment uploads and references). It is the
 * system clock; tests move it forward with `advance` to cross a 24-hour or 3-day boundary without
 * waiting. Nothing in the gateway advances it.
 */
export class AgentClock {
  #offsetMs = 0;

  readonly now = (): number => Date.now() + this.#offsetMs;

  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError('the clock only moves forward');
    this.#offsetMs += ms;
  }
}
