/**
 * fal webhook signatures: ED25519 over `request_id \n user_id \n timestamp \n sha256_hex(body)`,
 * headers `x-fal-webhook-request-id`, `-user-id`, `-timestamp` (Unix seconds), `-signature` (hex),
 * keys published as a JWKS (`https://rest.alpha.fal.ai/.well-known/jwks.json`). Keys come from the
 * config (`options.webhookPublicKeys`: base64url `x` values) and/or are fetched from
 * `options.webhookJwksUrl` (at start and then daily); until some key is known, callbacks carry no
 * trusted outcome.
 */
import { createHash, createPublicKey, type KeyObject, verify } from 'node:crypto';
import type { UpstreamHttpClient } from '../../../adapters/outbound/upstream-http-client.ts';
import { isRecord, parseJson } from '../shared/json-values.ts';

const TOLERANCE_S = 300;
const REFRESH_MS = 24 * 60 * 60 * 1000;

export function ed25519FromX(x: string): KeyObject {
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
}

export type FalSignatureCheck = 'valid' | 'invalid' | 'no-keys';

export class FalWebhookKeys {
  #keys: KeyObject[];
  readonly #staticKeys: KeyObject[];
  readonly #jwksUrl: string | undefined;
  readonly #http: UpstreamHttpClient;
  #fetchedAt = 0;
  #fetching: Promise<void> | undefined;

  constructor(staticX: string[], jwksUrl: string | undefined, http: UpstreamHttpClient) {
    this.#staticKeys = staticX.map(ed25519FromX);
    this.#keys = [...this.#staticKeys];
    this.#jwksUrl = jwksUrl;
    this.#http = http;
    if (jwksUrl) void this.refresh();
  }

  get configured(): boolean {
    return this.#staticKeys.length > 0 || this.#jwksUrl !== undefined;
  }

  /** Fetches the JWKS; keeps the old keys when it fails. */
  refresh(): Promise<void> {
    if (!this.#jwksUrl) return Promise.resolve();
    this.#fetching ??= (async () => {
      const exchange = await this.#http.send({ method: 'GET', url: this.#jwksUrl ?? '' });
      this.#fetchedAt = Date.now();
      if (exchange.kind !== 'response' || exchange.response.status !== 200) return;
      const json = parseJson(exchange.response.body);
      const keys = isRecord(json) && Array.isArray(json.keys) ? json.keys : [];
      const fetched: KeyObject[] = [];
      for (const key of keys) {
        if (isRecord(key) && key.kty === 'OKP' && key.crv === 'Ed25519' && typeof key.x === 'string') {
          try {
            fetched.push(ed25519FromX(key.x));
          } catch {
            // a malformed key: skip it
          }
        }
      }
      if (fetched.length > 0) this.#keys = [...this.#staticKeys, ...fetched];
    })().finally(() => {
      this.#fetching = undefined;
    });
    return this.#fetching;
  }

  check(headers: Record<string, string | undefined>, rawBody: Buffer, nowMs = Date.now()): FalSignatureCheck {
    if (this.#jwksUrl && nowMs - this.#fetchedAt > REFRESH_MS) void this.refresh();
    if (this.#keys.length === 0) return 'no-keys';
    const requestId = headers['x-fal-webhook-request-id'];
    const userId = headers['x-fal-webhook-user-id'];
    const timestamp = headers['x-fal-webhook-timestamp'];
    const signature = headers['x-fal-webhook-signature'];
    if (!requestId || userId === undefined || !timestamp || !signature) return 'invalid';
    if (!/^\d{1,12}$/u.test(timestamp) || Math.abs(nowMs / 1000 - Number(timestamp)) > TOLERANCE_S) return 'invalid';
    if (!/^[0-9a-f]+$/iu.test(signature)) return 'invalid';
    const digest = createHash('sha256').update(rawBody).digest('hex');
    const message = Buffer.from(`${requestId}\n${userId}\n${timestamp}\n${digest}`, 'utf8');
    const sig = Buffer.from(signature, 'hex');
    return this.#keys.some((key) => verify(null, message, key, sig)) ? 'valid' : 'invalid';
  }
}
