/**
 * Upstream answers that could not be taken as sent (issue 29): a usage count corrected before it was
 * billed, a media callback that named another job. Recorded for the operator, never for billing: the
 * money is decided before a row is written, and a failed write loses only the row.
 */
import type { UsageAnomalyKind } from '../domain/chat/usage-bounds.ts';

/** `foreign_job`: a media callback named an upstream job whose own request is not the one we sent. */
export type UpstreamAnomalyKind = UsageAnomalyKind | 'foreign_job';

export interface UpstreamAnomaly {
  provider: string | null;
  /** Our public model id. */
  model: string;
  upstreamModel: string | null;
  /** openai, anthropic, embeddings, or media. */
  protocol: string;
  /** The chat request (`chat_…`, `emb_…`) or the media attempt concerned. */
  reference: string;
  userId: string | null;
  field: string;
  kind: UpstreamAnomalyKind;
  /** What the upstream sent, as text. */
  reported: string;
  /** What was billed instead (tokens, or micro-USD for `cost`); null when nothing was billed from it. */
  billed: number | null;
}

export interface RecordedUpstreamAnomaly extends UpstreamAnomaly {
  id: string;
  at: number;
}

export interface UpstreamAnomalyQuery {
  limit: number;
  provider?: string;
  /** Older than this id (the cursor: the last id of the previous page; ids are time-ordered). */
  before?: string;
}

export interface UpstreamAnomalyLog {
  record(anomalies: readonly UpstreamAnomaly[], at?: number): Promise<void>;
  /** Newest first. */
  list(query: UpstreamAnomalyQuery): Promise<RecordedUpstreamAnomaly[]>;
}
