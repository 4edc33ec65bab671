/**
 * Verification of Standard Webhooks signatures (https://www.standardwebhooks.com): headers
 * `webhook-id`, `webhook-timestamp` (Unix seconds), `webhook-signature` (space-separated `v1,<base64>`
 * entries), each an HMAC-SHA256 of `id.timestamp.body` keyed with the base64 part of `whsec_…`.
 * Used by Replicate and by another Switchboard (DESIGN decision 10).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface StandardWebhookCheck {
  ok: boolean;
  /** Why a check failed (for logs; never shown to the caller of the webhook). */
  reason?: string;
  webhookId?: string;
}

export function webhookSecretKey(secret: string): Buffer {
  const raw = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  return Buffer.from(raw, 'base64');
}

export function verifyStandardWebhook(
  secret: string,
  headers: Record<string, string | undefined>,
  rawBody: Buffer,
  options: { toleranceS?: number; nowMs?: number } = {},
): StandardWebhookCheck {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (!id || !timestamp || !signatures) return { ok: false, reason: 'missing webhook-id, webhook-timestamp or webhook-signature' };
  if (!/^\d{1,12}$/u.test(timestamp)) return { ok: false, reason: 'webhook-timestamp is not a Unix time' };
  const skewS = Math.abs((options.nowMs ?? Date.now()) / 1000 - Number(timestamp));
  if (skewS > (options.toleranceS ?? 300)) return { ok: false, reason: `webhook-timestamp is ${Math.round(skewS)} s away from now` };
  const expected = createHmac('sha256', webhookSecretKey(secret)).update(`${id}.${timestamp}.`).update(rawBody).digest();
  for (const entry of signatures.split(' ')) {
    const [version, value] = entry.split(',', 2);
    if (version !== 'v1' || !value) continue;
    const given = Buffer.from(value, 'base64');
    if (given.length === expected.length && timingSafeEqual(given, expected)) return { ok: true, webhookId: id };
  }
  return { ok: false, reason: 'no matching v1 signature' };
}

/** Lower-cased header names (callers pass what the HTTP layer gives). */
export function lowerHeaders(headers: Record<string, string | undefined>): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(headers)) out[k.toLowerCase()] = v;
  return out;
}
