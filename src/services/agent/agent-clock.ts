/**
 * The one clock the gateway's calendars are measured by: attachment expiries, the 3-day retention of
 * generated files, storage renewals and grace periods, and the jobs that clean up after them. It is
 * the system clock; tests move it forward with `advance` to cross a 24-hour, 3-day or monthly boundary
 * without waiting. Nothing in the gateway advances it. (The work queue schedules on the system clock.)
 */
export class AgentClock {
  #offsetMs = 0;

  readonly now = (): number => Date.now() + this.#offsetMs;

  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError('the clock only moves forward');
    this.#offsetMs += ms;
  }
}
