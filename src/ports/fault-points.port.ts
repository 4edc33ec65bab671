/**
 * Crash points for tests (SWITCHBOARD_FAULT_POINTS): a service names the places where a crash would
 * hurt most (after a dispatch, before a settlement, after a storage copy), and the tests that configure
 * one prove that the work survives it. Shared by the agent engine and storage; with no points
 * configured (production) `at` does nothing.
 */
export interface FaultPoints {
  /** Reaching the point named `name`: nothing, a kill of the process, or a throw, as configured. */
  at(name: string): void;
}
