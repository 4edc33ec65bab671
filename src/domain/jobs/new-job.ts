/** A job as the code asks for it: what it works on, the queue it waits in, when it is due. */
export interface JobRef {
  kind: string;
  refId: string;
}

/**
 * Whom a job serves and what it calls, so that a claim with lane caps shares the slots fairly (a
 * webhook delivery: its user and its destination's origin).
 */
export interface JobLane {
  tenant: string;
  target: string;
}

export interface NewJob extends JobRef {
  queue: string;
  runAt: number;
  lane?: JobLane;
}
