/** Rows of the chat tables, as the store ports hand them out. */
export interface ChatRequestsRow {
  id: string;
  user_id: string;
  api_key_id: string | null;
  model: string;
  /** The wire protocol the client spoke: `openai` or `anthropic`. */
  protocol: string;
  /** The route that answered (null when none was reached). */
  provider: string | null;
  upstream_model: string | null;
  stream: number;
  /**
   * succeeded, failed (nothing billed), cut (upstream stream broke), client_closed, or
   * abandoned (the serving process died before settling; released in full by the chat_settle job).
   * Rows are written when the request settles (migration 009); `in_progress` exists only in rows
   * written before, whose hold was a ledger entry.
   */
  status: string;
  input_tokens: number;
  output_tokens: number;
  cached_tokens: number;
  cache_creation_tokens: number;
  /** 1 when the provider reported no usage and we billed what we counted. */
  usage_estimated: number;
  /** The most the request could cost, held before the call. */
  hold_micro: number;
  /** What was charged after settling. */
  cost_micro: number;
  /** What the served route entry's upstream charged us, at its cost when the request settled (issue 32, item 6; migration 038). Null: no cost set, or settled by the chat_settle job. */
  upstream_cost_micro?: number | null;
  latency_ms: number | null;
  first_byte_ms: number | null;
  error_code: string | null;
  error_message: string | null;
  created_at: number;
  finished_at: number | null;
  /** Refreshed every minute while the request runs (migration 007); the chat_settle job reads it. */
  /** Filled by the store when a new row leaves it out. */
  last_seen_at: number;
  /** Routes tried. */
  /** Filled by the store when a new row leaves it out. */
  attempts: number;
  stop_reason: string | null;
  /** Charge above the hold that the balance could not cover (not collected). */
  /** Filled by the store when a new row leaves it out. */
  uncollected_micro: number;
}

/**
 * A running chat request's hold (migration 009): written with the hold, deleted by the settlement
 * (its compare-and-set) or by the chat_settle job when the serving process died. `hold_micro` is part
 * of the user's `held_micro` while the row exists.
 */
export interface ChatHoldsRow {
  /** The chat request's id: its chat_requests row, once settled, has the same. */
  id: string;
  user_id: string;
  api_key_id: string | null;
  model: string;
  protocol: string;
  stream: number;
  hold_micro: number;
  created_at: number;
  /** Refreshed every minute while the request runs; the chat_settle job reads it. */
  last_seen_at: number;
  /**
   * Set when the live settlement failed (migration 032): the charge the chat_settle job makes (the
   * estimate) and the status the request settles with. Null while the request runs.
   */
  settle_micro: number | null;
  settle_status: string | null;
}

/** A usage count or a callback an upstream sent that could not be taken as sent (migration 032). */
export interface UpstreamAnomaliesRow {
  id: string;
  created_at: number;
  provider: string | null;
  model: string;
  upstream_model: string | null;
  /** openai, anthropic, embeddings or media. */
  protocol: string;
  /** The chat request or the media attempt concerned. */
  reference: string;
  user_id: string | null;
  field: string;
  kind: string;
  reported: string;
  billed: number | null;
}
