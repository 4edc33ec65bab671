/**
 * A delivery's recorded error as the Settings page shows it: in words, and without any network
 * address. The recorded text can name the address a host resolved to (a refused private address, a
 * socket error); showing it would let a user map what a name resolves to from the gateway's side.
 */

const SOCKET_ERRORS: ReadonlyArray<readonly [RegExp, string]> = [
  [/ECONNREFUSED/u, 'the receiver refused the connection (nothing listens on that port?)'],
  [/ECONNRESET|socket hang up/u, 'the receiver closed the connection before answering'],
  [/EHOSTUNREACH|ENETUNREACH/u, 'the receiver could not be reached'],
  [/ENOTFOUND|EAI_AGAIN/u, 'the host name does not resolve'],
  [/CERT|certificate|TLS|SSL/iu, 'the receiver\'s TLS certificate was not accepted'],
];

const IPV4 = /\b(?:\d{1,3}\.){3}\d{1,3}(?::\d{1,5})?\b/gu;
// Bracketed or bare IPv6 (at least two colons with hex groups), with an optional port.
const IPV6 = /\[?\b(?:[0-9a-f]{0,4}:){2,7}[0-9a-f]{0,4}\b\]?(?::\d{1,5})?/giu;
const MAX_WORDS = 500;

export function describeDeliveryError(recorded: string | null): string | null {
  if (recorded === null) return null;
  const http = /^HTTP (\d{3})\b(.*)$/su.exec(recorded);
  if (http) return `the receiver answered HTTP ${http[1]}${hideAddresses(http[2] ?? '')}`;
  if (recorded.startsWith('request failed:') || recorded.startsWith('connect:')) {
    for (const [pattern, words] of SOCKET_ERRORS) if (pattern.test(recorded)) return withTail(words, recorded);
  }
  if (recorded.startsWith('destination refused:')) return withTail('the destination was refused: it is, or its name resolves to, a private or local address, or its port is not allowed', recorded);
  if (recorded.startsWith('timeout:')) return withTail('the receiver did not answer in time', recorded);
  return hideAddresses(recorded).slice(0, MAX_WORDS);
}

/** Keeps a "gave up after n attempts" ending, the one part of the raw text worth repeating. */
function withTail(words: string, recorded: string): string {
  const gaveUp = /; gave up after \d+ attempts$/u.exec(recorded);
  return gaveUp ? `${words}${gaveUp[0]}` : words;
}

function hideAddresses(text: string): string {
  return text.replace(IPV4, '(address hidden)').replace(IPV6, (match) => (match.replace(/[[\]]/gu, '').split(':').length >= 3 ? '(address hidden)' : match));
}
