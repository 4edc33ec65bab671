export type OutboundFailure =
  /** Not a URL, or a URL with user:password. */
  | 'invalid_url'
  /** Not http or https. */
  | 'scheme'
  /** The host is, or resolves to, an address outside the public internet. */
  | 'private_address'
  /** The URL names a port the caller does not allow (webhooks: 443 and 80 by default). */
  | 'port'
  /** The name does not resolve. */
  | 'dns'
  /** The response is larger than the caller's limit. */
  | 'too_large'
  /** A time limit ran out (connect, or the whole exchange). */
  | 'timeout'
  /** Refused, reset or TLS failure before a response. */
  | 'connect'
  /** Too many redirects, or a redirect without a usable Location. */
  | 'redirects'
  /** A broken response, or a status the caller does not accept. */
  | 'http';

/** Why a request to a user-supplied URL was refused or failed. Callers match on `reason`. */
export class OutboundUrlError extends Error {
  readonly reason: OutboundFailure;
  readonly url: string;

  constructor(reason: OutboundFailure, message: string, url: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'OutboundUrlError';
    this.reason = reason;
    this.url = url;
  }
}

export function isOutboundUrlError(value: unknown): value is OutboundUrlError {
  return value instanceof OutboundUrlError;
}
