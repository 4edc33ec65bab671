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
