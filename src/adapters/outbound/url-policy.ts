import { isIP } from 'node:net';
import { classifyAddress } from './ip-ranges.ts';
import { OutboundUrlError } from './outbound-url-error.ts';

/** `localhost` and `*.localhost` always mean this machine (RFC 6761), whatever DNS says. */
export function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/u, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * The checks that need no network, for request validation: an absolute http(s) URL without
 * credentials, whose host is not a refused literal address or a localhost name. The guarded client
 * repeats them and also checks what the name resolves to when it connects. Returns the parsed URL.
 */
export function assertPublicUrl(url: string, allowPrivate: boolean): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new OutboundUrlError('invalid_url', 'not an absolute URL', url);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new OutboundUrlError('scheme', `only http and https URLs are allowed, not ${parsed.protocol.replace(/:$/u, '')}`, url);
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw new OutboundUrlError('invalid_url', 'URLs with a user name or password are not allowed', url);
  }
  if (parsed.hostname === '') throw new OutboundUrlError('invalid_url', 'the URL has no host', url);
  // The URL parser has already turned 0x7f.1, 2130706433 and friends into dotted quads.
  const host = hostLiteral(parsed);
  if (isIP(host) !== 0) {
    const verdict = classifyAddress(host);
    if (!verdict.allowed && !(allowPrivate && verdict.kind === 'private')) {
      throw new OutboundUrlError('private_address', `the address ${host} is not allowed: ${verdict.range}`, url);
    }
  } else if (!allowPrivate && isLocalhostName(host)) {
    throw new OutboundUrlError('private_address', `the host ${host} is this machine`, url);
  }
  return parsed;
}

/** The hostname without IPv6 brackets. */
export function hostLiteral(url: URL): string {
  const host = url.hostname;
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** Webhook ports when the operator says nothing (SWITCHBOARD_WEBHOOK_PORTS). */
export const DEFAULT_WEBHOOK_PORTS: readonly number[] = [443, 80];

/** The port a URL connects to: the one it names, or its scheme's default. */
export function effectivePort(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

/**
 * Webhook destinations may name only the allowed ports (443 and 80 unless the operator widens it):
 * a webhook is a POST the gateway sends where a user says, and other ports reach other services
 * (SSH, databases, admin consoles) on hosts the address policy lets through.
 */
export function assertAllowedPort(url: URL, ports: readonly number[] | 'any'): void {
  if (ports === 'any') return;
  const port = effectivePort(url);
  if (!ports.includes(port)) {
    throw new OutboundUrlError('port', `port ${port} is not allowed for webhooks (allowed: ${ports.join(', ')})`, url.href);
  }
}
