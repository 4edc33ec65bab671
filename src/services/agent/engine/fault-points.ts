/**
 * Crash points for tests (SWITCHBOARD_FAULT_POINTS): reaching a named point kills the process with
 * SIGKILL, exactly where a real crash would hurt most, so tests can prove that a run survives it;
 * `name:throw` throws there instead, the same way every time (a poisoned job, issue 17). With no
 * points configured (production) `at` does nothing.
 */
export class FaultPoints {
  readonly #kills: ReadonlySet<string>;
  readonly #throws: ReadonlySet<string>;

  constructor(points: readonly string[]) {
    this.#kills = new Set(points.filter((p) => !p.endsWith(':throw')));
    this.#throws = new Set(points.filter((p) => p.endsWith(':throw')).map((p) => p.slice(0, -':throw'.length)));
  }

  at(name: string): void {
    if (this.#kills.has(name)) process.kill(process.pid, 'SIGKILL');
    if (this.#throws.has(name)) throw new Error(`fault point ${name} reached`);
  }
}

/** The points the run engine offers. */
export const AGENT_FAULT_POINTS = [
  'agent.before_model_call',
  'agent.after_model_call',
  'agent.before_dispatch',
  'agent.after_dispatch',
  'agent.before_settle',
  'agent.before_extract_call',
  'agent.before_finalize',
] as const;
