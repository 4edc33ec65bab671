/**
 * Upstream calls per route entry and key over the last hour (issue 32, the Routes page's "share of
 * traffic"), counted by every process that calls upstreams: API processes (chat) and workers (media).
 * Counting is on the hot path and never waits (a map add); reading is for the operator and may.
 * Without Redis, each process counts its own calls only.
 */
export interface TrafficTally {
  /** One call with this subject (an entry or key subject of health-subjects.ts). Never waits. */
  count(subject: string, now?: number): void;
  /** Calls of each subject in the last hour, across the processes that share the tally. */
  lastHour(subjects: readonly string[], now?: number): Promise<Map<string, number>>;
  close(): Promise<void>;
}
