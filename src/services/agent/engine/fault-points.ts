/**
 * Crash points for tests (SWITCHBOARD_FAULT_POINTS): reaching a named point kills the process with
 * SIGKILL, exactly where a real crash would hurt most, so tests can prove that a run survives it.
 * With no points configured (production) `at` does nothing.
 */
export class FaultPoints {
  readonly #points: ReadonlySet<string>;

  constructor(points: readonly string[]) {
    this.#points = new Set(points);
  }

  at(name: string): void {
    if (this.#points.has(name)) process.kill(process.pid, 'SIGKILL');
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
