/**
 * The names of what the health board tracks (src/ports/upstream-health.port.ts): one upstream key of a
 * provider, and one route entry (a provider serving one upstream model). A key's failures say the key
 * or the provider is unwell; an entry's say that model is unwell there.
 */
export function keySubject(provider: string, keyId: string): string {
  return `key:${provider}:${keyId}`;
}

export function entrySubject(provider: string, upstreamModel: string): string {
  return `entry:${provider}:${upstreamModel}`;
}

/** The prefix of every key subject of a provider (for `records`). */
export function providerKeysPrefix(provider: string): string {
  return `key:${provider}:`;
}
