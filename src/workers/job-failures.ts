/**
 * What an unexpected failure of a job handler says about the job (the poison-job rule): a fault of
 * the infrastructure (src/adapters/resilience/infrastructure-fault.ts) is retried without counting;
 * anything else counts towards giving the job up, and two failures are "the same way" by their
 * fingerprint.
 */
export { isInfrastructureFault } from '../adapters/resilience/infrastructure-fault.ts';

/**
 * How a failure looked, so that "the same way twice" can be told: the error's class, code and
 * message, digits folded (times, counts and positions change between two runs of the same fault).
 */
export function failureFingerprint(error: unknown): string {
  if (!(error instanceof Error)) return `thrown ${typeof error}: ${String(error)}`.replace(/\d+/g, '#').slice(0, 300);
  const code = (error as { code?: unknown }).code;
  return `${error.name}${typeof code === 'string' ? ` ${code}` : ''}: ${error.message}`.replace(/\d+/g, '#').slice(0, 300);
}
