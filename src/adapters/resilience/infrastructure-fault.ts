/**
 * Whether a failure is a fault of the infrastructure, which says nothing about the work that met it:
 * a dropped or refused connection, the database restarting or out of resources (a full disk too), a serialization
 * conflict, a busy SQLite file, Redis or S3 unreachable. Such a job is retried without counting
 * towards giving it up (src/workers/job-failures.ts), and a chat settlement is tried again
 * (chat.service.ts). Read from error codes and classes along the `cause` chain, never from message text.
 */
import { unavailableDependency } from '../../domain/errors.ts';

/** Node and undici socket errors, and a full disk (ENOSPC, EDQUOT: the work is fine, the disk is not). */
const NETWORK_CODES = new Set(['ENOSPC', 'EDQUOT', 'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNABORTED', 'ESOCKETTIMEDOUT']);
/** PostgreSQL SQLSTATEs: serialization failure, deadlock, cannot connect now, admin/crash shutdown, too many connections. */
const POSTGRES_CODES = new Set(['40001', '40P01', '57P01', '57P02', '57P03', '53300', '53200', '53100']);
/** SQLite primary result codes: SQLITE_BUSY, SQLITE_LOCKED, SQLITE_IOERR, SQLITE_FULL. */
const SQLITE_ERRCODES = new Set([5, 6, 10, 13]);
/** Our own AppError for "a store is away, try again" (a 503 with Retry-After). */
const APP_CODES = new Set(['service_unavailable']);
/** ioredis errors and timeouts. */
const TRANSIENT_NAMES = new Set(['MaxRetriesPerRequestError', 'ClosedError', 'TimeoutError', 'AbortError']);

interface ErrorShape {
  name?: unknown;
  code?: unknown;
  errcode?: unknown;
  cause?: unknown;
  $retryable?: unknown;
  $metadata?: { httpStatusCode?: unknown };
}

export function isInfrastructureFault(error: unknown): boolean {
  // The store adapters' own word for "unreachable for now" (a lost PostgreSQL connection, S3 down).
  if (unavailableDependency(error)) return true;
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== null && typeof current === 'object'; depth++) {
    const e = current as ErrorShape;
    const code = typeof e.code === 'string' ? e.code : undefined;
    if (code !== undefined) {
      if (NETWORK_CODES.has(code) || code.startsWith('UND_ERR_') || POSTGRES_CODES.has(code) || code.startsWith('08') || APP_CODES.has(code)) return true;
    }
    if (typeof e.errcode === 'number' && SQLITE_ERRCODES.has(e.errcode & 0xff)) return true;
    if (typeof e.name === 'string' && TRANSIENT_NAMES.has(e.name)) return true;
    // The AWS SDK marks throttling and 5xx answers as retryable.
    if (e.$retryable !== undefined || (typeof e.$metadata?.httpStatusCode === 'number' && e.$metadata.httpStatusCode >= 500)) return true;
    current = e.cause;
  }
  return false;
}
