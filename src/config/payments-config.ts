import { ConfigError } from '../domain/config-error.ts';
import type { PaymentsConfig } from './config.types.ts';

type Env = Record<string, string | undefined>;

/** Stripe's own API; STRIPE_API_BASE points elsewhere only for a fake in tests. */
const STRIPE_API = 'https://api.stripe.com';
/** Top-ups below this cost more in card fees than they are worth; above the maximum, ask the operator. */
const DEFAULT_MIN_CENTS = 500;
const DEFAULT_MAX_CENTS = 100_000;
/** Stripe's own limits for a USD Checkout charge: 50 cents to 999,999.99 dollars. */
const STRIPE_MIN_CENTS = 50;
const STRIPE_MAX_CENTS = 99_999_999;

/**
 * STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET switch top-ups on (both or neither);
 * SWITCHBOARD_TOPUP_MIN_CENTS and SWITCHBOARD_TOPUP_MAX_CENTS bound one top-up (default $5 to $1,000).
 */
export function parsePaymentsConfig(env: Env): PaymentsConfig {
  const secretKey = env.STRIPE_SECRET_KEY || undefined;
  const webhookSecret = env.STRIPE_WEBHOOK_SECRET || undefined;
  if (secretKey && !webhookSecret) throw new ConfigError('STRIPE_WEBHOOK_SECRET', 'is required with STRIPE_SECRET_KEY (the endpoint secret whsec_… of the webhook)');
  if (webhookSecret && !secretKey) throw new ConfigError('STRIPE_SECRET_KEY', 'is required with STRIPE_WEBHOOK_SECRET');
  if (secretKey && !/^(sk|rk)_(test|live)_\S+$/.test(secretKey)) throw new ConfigError('STRIPE_SECRET_KEY', 'must be a Stripe secret or restricted key (sk_… or rk_…)');
  if (webhookSecret && !/^whsec_\S+$/.test(webhookSecret)) throw new ConfigError('STRIPE_WEBHOOK_SECRET', 'must be a webhook endpoint secret (whsec_…)');
  const apiBase = (env.STRIPE_API_BASE || STRIPE_API).replace(/\/+$/, '');
  if (!/^https?:\/\/[^\s/]+/.test(apiBase)) throw new ConfigError('STRIPE_API_BASE', 'must be an http(s) URL');
  const minTopupCents = cents(env, 'SWITCHBOARD_TOPUP_MIN_CENTS', DEFAULT_MIN_CENTS);
  const maxTopupCents = cents(env, 'SWITCHBOARD_TOPUP_MAX_CENTS', DEFAULT_MAX_CENTS);
  if (maxTopupCents < minTopupCents) throw new ConfigError('SWITCHBOARD_TOPUP_MAX_CENTS', `must be at least SWITCHBOARD_TOPUP_MIN_CENTS (${minTopupCents})`);
  return {
    stripe: secretKey && webhookSecret ? { secretKey, webhookSecret, apiBase } : undefined,
    minTopupCents,
    maxTopupCents,
  };
}

function cents(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < STRIPE_MIN_CENTS || value > STRIPE_MAX_CENTS) {
    throw new ConfigError(name, `must be a whole number of cents from ${STRIPE_MIN_CENTS} to ${STRIPE_MAX_CENTS}, got ${JSON.stringify(raw)}`);
  }
  return value;
}
