/**
 * The process's fault points (SWITCHBOARD_FAULT_POINTS): reaching a named point kills the process
 * with SIGKILL, exactly where a real crash would, so tests can prove that the work survives it;
 * `name:throw` throws there instead, the same way every time (a poisoned job, issue 17).
 */
import type { FaultPoints } from '../../ports/fault-points.port.ts';

export class ProcessFaultPoints implements FaultPoints {
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
