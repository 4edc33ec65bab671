import type { GuardedHttpClient } from '../adapters/outbound/guarded-http-client.ts';
import type { Config } from '../config/config.types.ts';
import type { MediaProvider } from './media/media-provider.ts';
import { createMediaProvider, isMediaProviderType } from './media/registry.ts';

/**
 * One MediaProvider per configured provider whose API style serves media (text-only styles such as
 * `anthropic` are skipped here and served by the chat registry).
 */
export function buildMediaProviders(config: Config, guardedHttp: GuardedHttpClient): Map<string, MediaProvider> {
  const providers = new Map<string, MediaProvider>();
  for (const [name, provider] of Object.entries(config.providers)) {
    if (!isMediaProviderType(provider.type)) continue;
    providers.set(name, createMediaProvider(name, provider, { guardedHttp }));
  }
  return providers;
}
