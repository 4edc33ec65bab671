/**
 * All-time spend of a user up to a settled UTC day (GET /api/v1/stats): every task and chat request
 * created on or before `through_day` has reached a state whose cost can no longer change.
 */
export interface StatsCheckpointsRow {
  user_id: string;
  /** A UTC day number (milliseconds since the epoch / 86,400,000). */
  through_day: number;
  /** Spend of the tasks (not refunded) and chat requests created on or before through_day. */
  spent_micro: number;
  updated_at: number;
}
