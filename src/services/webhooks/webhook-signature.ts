import { createHmac } from 'node:crypto';

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com, DESIGN decision 10): the signed content
 * is `${webhook-id}.${webhook-timestamp}.${body}`, the signature `v1,` + base64 of its HMAC-SHA256 under
 * the secret's bytes. A secret is `whsec_` + base64; the key is the base64-decoded part after the
 * prefix (a secret without the prefix is decoded whole, as the reference libraries do).
 */

export const WEBHOOK_SECRET_PREFIX = 'whsec_';

export function webhookSecretKey(secret: string): Buffer {
  const encoded = secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret;
  const key = Buffer.from(encoded, 'base64');
  if (key.length === 0) throw new Error('a webhook secret must hold base64 key bytes after whsec_');
  return key;
}

/** One `v1,<base64>` signature. `timestampSeconds` is the value sent in `webhook-timestamp`. */
export function signWebhook(secret: string, messageId: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', webhookSecretKey(secret)).update(`${messageId}.${timestampSeconds}.${body}`, 'utf8').digest('base64');
  return `v1,${mac}`;
}

/**
 * The `webhook-signature` value: one signature per active secret, space-separated (the spec's way to
 * rotate: a receiver accepts the message when any of them verifies with the secret it holds).
 */
export function webhookSignatureHeader(secrets: readonly string[], messageId: string, timestampSeconds: number, body: string): string {
  if (secrets.length === 0) throw new Error('at least one secret is needed to sign a webhook');
  return secrets.map((secret) => signWebhook(secret, messageId, timestampSeconds, body)).join(' ');
}

export interface SignedWebhookHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
  'content-type': string;
  'user-agent': string;
}

export const WEBHOOK_USER_AGENT = 'Switchboard-Webhooks/1.0';

/** Every header of one attempt (the timestamp is the attempt's, so each retry is signed afresh). */
export function signedWebhookHeaders(args: {
  messageId: string;
  timestampSeconds: number;
  body: string;
  secrets: readonly string[];
  userAgent?: string;
}): SignedWebhookHeaders {
  return {
    'webhook-id': args.messageId,
    'webhook-timestamp': String(args.timestampSeconds),
    'webhook-signature': webhookSignatureHeader(args.secrets, args.messageId, args.timestampSeconds, args.body),
    'content-type': 'application/json',
    'user-agent': args.userAgent ?? WEBHOOK_USER_AGENT,
  };
}
