/**
 * Provider `type` → media adapter. The media provider pool (src/services/upstreams/media-provider-pool.ts)
 * builds one adapter per provider key with `createMediaProvider`; nothing else names a vendor. Adding a style is its folder and one
 * line here. The table sits above the styles (local among them), so no style imports back up into it.
 */
import type { ProviderConfig } from '../../config/config.types.ts';
import { createLocalMediaProvider } from '../local/local-media.provider.ts';
import { createFalProvider } from '../media/fal/fal.provider.ts';
import { createGoogleProvider } from '../media/google/google.provider.ts';
import { createKieProvider } from '../media/kie/kie.provider.ts';
import type { MediaProvider, MediaProviderDeps, MediaProviderFactoryOptions } from '../media/media-provider.ts';
import { createOpenAiProvider } from '../media/openai/openai.provider.ts';
import { createReplicateProvider } from '../media/replicate/replicate.provider.ts';
import { createSwitchboardProvider } from '../media/switchboard/switchboard.provider.ts';
import { type ProviderFactories, ProviderRegistry } from '../provider-registry.ts';

export type { MediaProviderDeps } from '../media/media-provider.ts';

export const MEDIA_PROVIDER_FACTORIES: ProviderFactories<MediaProviderFactoryOptions, MediaProviderDeps, MediaProvider> = {
  kie: createKieProvider,
  fal: createFalProvider,
  replicate: createReplicateProvider,
  openai: createOpenAiProvider,
  switchboard: createSwitchboardProvider,
  google: createGoogleProvider,
  local: createLocalMediaProvider,
};

const MEDIA_PROVIDERS = new ProviderRegistry(MEDIA_PROVIDER_FACTORIES);

export class UnknownProviderTypeError extends Error {
  readonly providerName: string;
  readonly providerType: string;
  constructor(name: string, type: string) {
    super(`provider ${JSON.stringify(name)} has type ${JSON.stringify(type)}, which is not a media provider type (known: ${Object.keys(MEDIA_PROVIDER_FACTORIES).join(', ')})`);
    this.name = 'UnknownProviderTypeError';
    this.providerName = name;
    this.providerType = type;
  }
}

export function isMediaProviderType(type: string): boolean {
  return MEDIA_PROVIDERS.has(type);
}

export function mediaProviderTypes(): string[] {
  return MEDIA_PROVIDERS.types();
}

export function createMediaProvider(name: string, config: ProviderConfig, deps: MediaProviderDeps = {}): MediaProvider {
  const factory = MEDIA_PROVIDERS.factory(config.type);
  if (!factory) throw new UnknownProviderTypeError(name, config.type);
  return factory({ name, baseUrl: config.baseUrl, apiKey: config.apiKey, timeoutMs: config.timeoutMs, options: config.options }, deps);
}
