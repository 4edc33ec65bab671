/**
 * The traffic tally of one process (src/ports/traffic-tally.port.ts): one counter per subject and
 * minute, 61 minutes kept. Counting is a map lookup and an add, on every upstream call; reading sums
 * at most 61 numbers per subject. The Redis tally keeps one of these as what it has not sent yet.
 */
import type { TrafficTally } from '../../ports/traffic-tally.port.ts';

const MINUTE_MS = 60_000;
const MINUTES = 61;
/** A bound on distinct subjects, so a flood of made-up model names cannot grow the map without end. */
const MAX_SUBJECTS = 10_000;

interface Counter {
  minutes: Float64Array;
  counts: Uint32Array;
}

export class MemoryTrafficTally implements TrafficTally {
  readonly #counters = new Map<string, Counter>();

  count(subject: string, now: number = Date.now()): void {
    let counter = this.#counters.get(subject);
    if (!counter) {
      if (this.#counters.size >= MAX_SUBJECTS) this.#prune(now);
      if (this.#counters.size >= MAX_SUBJECTS) return;
      counter = { minutes: new Float64Array(MINUTES).fill(-1), counts: new Uint32Array(MINUTES) };
      this.#counters.set(subject, counter);
    }
    const minute = Math.floor(now / MINUTE_MS);
    const slot = minute % MINUTES;
    if (counter.minutes[slot] !== minute) {
      counter.minutes[slot] = minute;
      counter.counts[slot] = 0;
    }
    counter.counts[slot] = (counter.counts[slot] ?? 0) + 1;
  }

  async lastHour(subjects: readonly string[], now: number = Date.now()): Promise<Map<string, number>> {
    return new Map(subjects.map((s) => [s, this.callsInLastHour(s, now)]));
  }

  async close(): Promise<void> {}

  /** Calls of one subject in the last hour. */
  callsInLastHour(subject: string, now: number = Date.now()): number {
    const counter = this.#counters.get(subject);
    if (!counter) return 0;
    const oldest = Math.floor(now / MINUTE_MS) - (MINUTES - 1);
    let total = 0;
    for (let i = 0; i < MINUTES; i++) if ((counter.minutes[i] ?? -1) >= oldest) total += counter.counts[i] ?? 0;
    return total;
  }

  #prune(now: number): void {
    for (const subject of this.#counters.keys()) if (this.callsInLastHour(subject, now) === 0) this.#counters.delete(subject);
  }
}

/** The minute a time falls in, as the tallies key it. */
export function minuteOf(now: number): number {
  return Math.floor(now / MINUTE_MS);
}

export const TALLY_MINUTES = MINUTES;
