import { createHmac, timingSafeEqual } from 'node:crypto';

/** Stripe's default tolerance: a signature older (or newer) than five minutes is refused as a replay. */
export const STRIPE_SIGNATURE_TOLERANCE_S = 300;

/** The `v1` scheme: hex HMAC-SHA256 of `${t}.${rawBody}` keyed with the whole endpoint secret (`whsec_…`). */
export function stripeSignature(secret: string, timestamp: number, rawBody: Buffer | string): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex');
}

/** The `Stripe-Signature` header Stripe sends: `t=<unix seconds>,v1=<hex>`. */
export function stripeSignatureHeader(secret: string, timestamp: number, rawBody: Buffer | string): string {
  return `t=${timestamp},v1=${stripeSignature(secret, timestamp, rawBody)}`;
}

export type SignatureCheck = 'valid' | 'missing' | 'malformed' | 'stale' | 'mismatch';

/**
 * Verifies a `Stripe-Signature` header: any of its `v1` values (there are two while the secret is
 * rolled) must match, compared in constant time, and `t` must be within the tolerance of now.
 */
export function checkStripeSignature(header: string | undefined, rawBody: Buffer, secret: string, nowMs: number): SignatureCheck {
  if (!header) return 'missing';
  let timestamp: number | undefined;
  const candidates: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't' && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    else if (key === 'v1' && /^[0-9a-f]{64}$/.test(value)) candidates.push(value);
  }
  if (timestamp === undefined || candidates.length === 0) return 'malformed';
  if (Math.abs(nowMs / 1000 - timestamp) > STRIPE_SIGNATURE_TOLERANCE_S) return 'stale';
  const expected = Buffer.from(stripeSignature(secret, timestamp, rawBody), 'hex');
  let matched = false;
  // Every candidate is compared, so the time taken does not tell which one matched.
  for (const candidate of candidates) if (timingSafeEqual(Buffer.from(candidate, 'hex'), expected)) matched = true;
  return matched ? 'valid' : 'mismatch';
}
