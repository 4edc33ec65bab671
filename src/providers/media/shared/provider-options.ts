/** Reading the style-specific `options` of a provider's config, and what every style shares. */
import { ConfigError } from '../../../domain/config-error.ts';
import type { MediaProviderFactoryOptions } from '../media-provider.ts';
import { UpstreamHttpClient } from '../../../adapters/outbound/upstream-http-client.ts';

function fail(provider: string, key: string, expected: string): never {
  throw new ConfigError(`providers.${provider}.options.${key}`, `must be ${expected}`);
}

export function optionNumber(o: MediaProviderFactoryOptions, key: string, fallback: number): number {
  const v = o.options[key];
  if (v === undefined || v === null) return fallback;
  if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) && Number(v) >= 0) return Number(v);
  return fail(o.name, key, 'a non-negative number');
}

export function optionString(o: MediaProviderFactoryOptions, key: string): string | undefined {
  const v = o.options[key];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v === 'string') return v;
  return fail(o.name, key, 'a string');
}

export function optionBoolean(o: MediaProviderFactoryOptions, key: string, fallback: boolean): boolean {
  const v = o.options[key];
  if (v === undefined || v === null) return fallback;
  if (typeof v === 'boolean') return v;
  if (v === 'true' || v === 'false') return v === 'true';
  return fail(o.name, key, 'true or false');
}

export function optionStrings(o: MediaProviderFactoryOptions, key: string): string[] {
  const v = o.options[key];
  if (v === undefined || v === null) return [];
  if (typeof v === 'string') return [v];
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
  return fail(o.name, key, 'a string or a list of strings');
}

export function requireApiKey(o: MediaProviderFactoryOptions): string {
  if (!o.apiKey) throw new ConfigError(`providers.${o.name}.apiKey`, 'is required for this provider type');
  return o.apiKey;
}

/** The configured base URL, or the vendor's public one. */
export function baseUrlOf(o: MediaProviderFactoryOptions, fallback: string | undefined): string {
  const url = o.baseUrl ?? fallback;
  if (!url) throw new ConfigError(`providers.${o.name}.baseUrl`, 'is required for this provider type');
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('scheme');
  } catch {
    throw new ConfigError(`providers.${o.name}.baseUrl`, `must be an http(s) URL (got ${JSON.stringify(url)})`);
  }
  return url.replace(/\/+$/u, '');
}

/** Settings every style reads: poll pacing and the shared HTTP pool. */
export interface CommonSettings {
  baseUrl: string;
  apiKey: string;
  http: UpstreamHttpClient;
  pollMs: number;
  /** Delay before polling again after a poll that did not get through. */
  retryPollMs: number;
}

export function commonSettings(o: MediaProviderFactoryOptions, defaultBaseUrl: string | undefined, defaultPollMs: number): CommonSettings {
  const baseUrl = baseUrlOf(o, defaultBaseUrl);
  const apiKey = requireApiKey(o);
  return {
    baseUrl,
    apiKey,
    // Idle sockets are dropped before the usual 5 s server idle timeout, so a submit is not written to a
    // socket the upstream is closing (which would make its outcome unknown).
    http: new UpstreamHttpClient({ timeoutMs: o.timeoutMs, keepAliveMs: optionNumber(o, 'keepAliveMs', 4_000), userAgent: 'Switchboard/0.1 (+media-provider)' }),
    pollMs: optionNumber(o, 'pollIntervalMs', defaultPollMs),
    retryPollMs: optionNumber(o, 'retryPollMs', Math.max(defaultPollMs, 5_000)),
  };
}
