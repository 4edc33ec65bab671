import { ConfigError } from '../domain/config-error.ts';
import type { ConfigReader } from './config-reader.ts';
import type { AbuseLimits, RateLimitSetting, WebhookPolicy } from './config.types.ts';

type Env = Record<string, string | undefined>;

const MINUTE_MS = 60_000;

/** Defaults of the `limits` section (docs/decisions.md, "Abuse limits"). */
export const DEFAULT_LIMITS: AbuseLimits = {
  // A person types a few codes; an account has a handful of keys.
  redeemPerKey: { max: 10, windowMs: 10 * MINUTE_MS },
  redeemPerAccount: { max: 20, windowMs: 60 * MINUTE_MS },
  adminFailuresPerAddress: { max: 10, windowMs: 10 * MINUTE_MS },
  // Each one is a session at the payment provider.
  checkoutsPerUser: { max: 10, windowMs: 10 * MINUTE_MS },
  // Above what one user's creates produce at full speed (about 20 a second): it bounds a user who
  // turns deliveries on a third party (agent events fan out to up to 50 destinations), not a busy one.
  webhookDeliveriesPerUser: { max: 1_200, windowMs: MINUTE_MS },
  eventStreamsPerUser: 20,
  // Test events and redeliveries of agent webhooks, sent by hand from Settings (one allowance):
  // plenty to debug a receiver, too few to aim a stream of requests at someone else's server.
  webhookTestsPerUser: { max: 30, windowMs: 10 * MINUTE_MS },
  // Emailed sign-in links: enough for a person, too few to spam many mailboxes from one address or
  // to flood one mailbox from many.
  signInLinksPerAddress: { max: 10, windowMs: 60 * MINUTE_MS },
  signInLinksPerMailbox: { max: 3, windowMs: 60 * MINUTE_MS },
};

const RATE_KEYS = [
  'redeemPerKey',
  'redeemPerAccount',
  'adminFailuresPerAddress',
  'checkoutsPerUser',
  'webhookDeliveriesPerUser',
  'webhookTestsPerUser',
  'signInLinksPerAddress',
  'signInLinksPerMailbox',
] as const;

/**
 * `limits: { <name>: { max, windowSeconds }, eventStreamsPerUser: n }`: each rate limit as events per
 * window; what is not named keeps its default.
 */
export function parseLimits(section: ConfigReader | undefined): AbuseLimits {
  section?.onlyKeys([...RATE_KEYS, 'eventStreamsPerUser']);
  const limits: AbuseLimits = { ...DEFAULT_LIMITS };
  for (const name of RATE_KEYS) {
    const entry = section?.object(name);
    if (entry) limits[name] = parseRate(entry, DEFAULT_LIMITS[name]);
  }
  const streams = section?.number('eventStreamsPerUser', { min: 1, max: 10_000, integer: true });
  if (streams !== undefined) limits.eventStreamsPerUser = streams;
  return limits;
}

function parseRate(entry: ConfigReader, fallback: RateLimitSetting): RateLimitSetting {
  entry.onlyKeys(['max', 'windowSeconds']);
  const max = entry.number('max', { min: 1, max: 1_000_000, integer: true }) ?? fallback.max;
  const windowSeconds = entry.number('windowSeconds', { min: 1, max: 7 * 24 * 3600 });
  return { max, windowMs: windowSeconds === undefined ? fallback.windowMs : Math.round(windowSeconds * 1000) };
}

/**
 * SWITCHBOARD_WEBHOOK_PORTS: the ports a webhook URL may name, comma-separated, or `any` (default
 * 80,443). SWITCHBOARD_ALLOW_HTTP_WEBHOOKS=1: agent webhook destinations may be plain http
 * (development and tests; HTTPS otherwise, as SPEC.md says).
 */
export function parseWebhookPolicy(env: Env): WebhookPolicy {
  const rawPorts = (env.SWITCHBOARD_WEBHOOK_PORTS ?? '').trim();
  let ports: number[] | 'any' = [80, 443];
  if (rawPorts.toLowerCase() === 'any') ports = 'any';
  else if (rawPorts !== '') {
    ports = rawPorts.split(',').map((item) => {
      const port = item.trim();
      if (!/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535) {
        throw new ConfigError('SWITCHBOARD_WEBHOOK_PORTS', `must be port numbers separated by commas, or any; ${JSON.stringify(port.slice(0, 20))} is not a port`);
      }
      return Number(port);
    });
  }
  const rawHttp = (env.SWITCHBOARD_ALLOW_HTTP_WEBHOOKS ?? '').toLowerCase();
  if (!['', '0', '1', 'true', 'false', 'yes', 'no', 'on', 'off'].includes(rawHttp)) {
    throw new ConfigError('SWITCHBOARD_ALLOW_HTTP_WEBHOOKS', `must be 1 or 0 (true or false), got ${JSON.stringify(env.SWITCHBOARD_ALLOW_HTTP_WEBHOOKS)}`);
  }
  return { ports, allowHttp: ['1', 'true', 'yes', 'on'].includes(rawHttp) };
}

/** ADMIN_TOKEN: long enough that guessing it is hopeless, whatever the rate limit. */
export const ADMIN_TOKEN_MIN_LENGTH = 32;

export function parseAdminToken(env: Env): string | undefined {
  const token = env.ADMIN_TOKEN || undefined;
  if (token !== undefined && token.length < ADMIN_TOKEN_MIN_LENGTH) {
    throw new ConfigError(
      'ADMIN_TOKEN',
      `is ${token.length} characters long; it must have at least ${ADMIN_TOKEN_MIN_LENGTH} (make one with: openssl rand -hex 32), or leave it unset to turn the admin API off`,
    );
  }
  return token;
}
