/**
 * The words of a failed key test. They reach the admin API, its audit and the health board, so they
 * never hold the secret: the key itself and anything an upstream echoes of it (OpenAI's
 * "Incorrect API key provided: sk-proj-****…abcd" masks most of it, not all) is cut out, and the
 * text is kept to one short sentence.
 */
import type { UpstreamFailureKind } from '../../ports/upstream-health.port.ts';

const MAX_CHARS = 200;
/** A token with a run of mask characters: a vendor's partial echo of a key. */
const MASKED_TOKEN = /\S*[*•]{3,}\S*/gu;
/** Secrets shorter than this are not searched for: they would cut ordinary words. */
const MIN_SECRET_CHARS = 6;

const LEADS: Readonly<Record<UpstreamFailureKind | 'other', string>> = {
  auth: 'the upstream refused the key',
  quota: 'the account has no credit or quota left',
  rate_limited: 'the upstream is rate limiting this key',
  transient: 'the upstream failed or could not be reached',
  other: 'the test call failed',
};

/** `secret` and masked echoes of a key replaced by `[redacted]`. */
export function redact(text: string, secret: string | undefined): string {
  let out = text;
  if (secret !== undefined && secret.length >= MIN_SECRET_CHARS) out = out.split(secret).join('[redacted]');
  return out.replace(MASKED_TOKEN, '[redacted]');
}

/** One line, at most 200 characters, without the secret. */
export function failureWords(kind: UpstreamFailureKind | undefined, detail: string, secret: string | undefined): string {
  const line = `${LEADS[kind ?? 'other']}: ${redact(detail, secret)}`.replace(/\s+/gu, ' ').trim();
  return line.length > MAX_CHARS ? `${line.slice(0, MAX_CHARS - 1)}…` : line;
}
