/**
 * The agent's recurring jobs on the `maintenance` queue (each safe to run twice, and in several
 * processes at once): verifying text routes' capabilities, removing events older than their
 * retention (a reader whose cursor is older gets `resync`), removing expired attachments, and
 * forgetting idempotency keys past their retention.
 */
import type { Logger } from 'pino';
import type { AgentLibraryStore } from '../../ports/agent-library-store.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';
import type { JobOutcome } from '../../ports/work-queue.port.ts';
import type { AttachmentsService } from './attachments/attachments.service.ts';
import type { RouteCapabilities } from './settings/route-capabilities.service.ts';

/** Idempotency keys answer replays for a week (AGENT.md asks for at least 24 hours); a decision's until its run ended a day ago. */
export const IDEMPOTENCY_RETENTION_MS = 7 * 24 * 3_600_000;
const DECISION_GRACE_MS = 24 * 3_600_000;
/** SPEC "Limits": expired uploads and references are removed every minute. */
export const ATTACHMENT_CLEANUP_INTERVAL_MS = 60_000;

export function createCapabilityProbeHandler(deps: { capabilities: RouteCapabilities; logger: Logger; intervalMs: number }): () => Promise<JobOutcome> {
  return async () => {
    try {
      const probed = await deps.capabilities.probeStale();
      if (probed > 0) deps.logger.info({ routes: probed }, 'verified the capabilities of text routes');
    } catch (error) {
      deps.logger.warn({ err: error }, 'verifying text routes failed; trying again later');
    }
    // Looked at more often than the verdicts age, so a verdict is renewed soon after it is due.
    return { kind: 'again', runAt: Date.now() + Math.min(deps.intervalMs / 4, 3_600_000) };
  };
}

export function createEventPruneHandler(deps: { store: AgentLibraryStore; uow: UnitOfWork; logger: Logger; retentionMs: number }): () => Promise<JobOutcome> {
  return async () => {
    const before = Date.now() - deps.retentionMs;
    let removed = 0;
    for (;;) {
      const n = await deps.uow.transaction((tx) => deps.store.pruneEvents(tx, before, 1000));
      removed += n;
      if (n < 1000) break;
    }
    if (removed > 0) deps.logger.info({ removed }, 'removed agent events past their retention');
    return { kind: 'again', runAt: Date.now() + 3_600_000 };
  };
}

export function createAttachmentCleanupHandler(deps: { attachments: AttachmentsService; logger: Logger }): () => Promise<JobOutcome> {
  return async () => {
    try {
      const removed = await deps.attachments.cleanup();
      if (removed > 0) deps.logger.info({ removed }, 'removed expired agent attachments');
    } catch (error) {
      deps.logger.warn({ err: error }, 'removing expired attachments failed; trying again in a minute');
    }
    return { kind: 'again', runAt: Date.now() + ATTACHMENT_CLEANUP_INTERVAL_MS };
  };
}

export function createIdempotencyPruneHandler(deps: { store: AgentLibraryStore; uow: UnitOfWork; logger: Logger; now: () => number }): () => Promise<JobOutcome> {
  return async () => {
    const now = deps.now();
    const removed = await deps.store.pruneIdempotencyRecords(deps.uow.direct, now - IDEMPOTENCY_RETENTION_MS, now, DECISION_GRACE_MS, 1000);
    if (removed > 0) deps.logger.info({ removed }, 'forgot idempotency keys past their retention');
    return { kind: 'again', runAt: Date.now() + 3_600_000 };
  };
}
