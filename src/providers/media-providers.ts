import type { Config } from '../config/config.types.ts';
import { createLocalMediaProvider } from './local/local-media.provider.ts';
import type { MediaProvider, MediaProviderFactory } from './media/media-provider.ts';

const FACTORIES: Record<string, MediaProviderFactory> = {
  local: createLocalMediaProvider,
};

export function servesMedia(type: string): boolean {
  return type in FACTORIES;
}

/** One MediaProvider per configured provider whose API style serves media. */
export function buildMediaProviders(config: Config): Map<string, MediaProvider> {
  const providers = new Map<string, MediaProvider>();
  for (const [name, provider] of Object.entries(config.providers)) {
    const factory = FACTORIES[provider.type];
    if (!factory) continue;
    providers.set(name, factory({ name, baseUrl: provider.baseUrl, apiKey: provider.apiKey, timeoutMs: provider.timeoutMs, options: provider.options }));
  }
  return providers;
}
