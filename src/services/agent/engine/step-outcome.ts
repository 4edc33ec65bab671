import type { JobOutcome } from '../../../ports/work-queue.port.ts';

/**
 * What a step tells the job handler: go on at once (the pool keeps the lease and runs it again in
 * this process), look again later (waiting for media or for a stop to drain), or set the job aside
 * (the run waits for the user, or ended): it is scheduled again by whatever changes the run.
 */
export type StepOutcome = { next: 'now' } | { next: 'later'; afterMs: number } | { next: 'idle' };

export const NOW: StepOutcome = { next: 'now' };
export const IDLE: StepOutcome = { next: 'idle' };

export function later(afterMs: number): StepOutcome {
  return { next: 'later', afterMs };
}

export type { JobOutcome };
