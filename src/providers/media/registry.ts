/**
 * Provider `type` → media adapter. The composition root calls `createMediaProvider` once per
 * configured media provider; nothing else names a vendor. Adding a style is its file and one line here.
 */
import type { ProviderConfig } from '../../config/config.types.ts';
import { createLocalMediaProvider } from '../local/local-media.provider.ts';
import { ProviderRegistry } from '../provider-registry.ts';
import { createFalProvider } from './fal/fal.provider.ts';
import { createGoogleProvider } from './google/google.provider.ts';
import { createKieProvider } from './kie/kie.provider.ts';
import type { MediaProvider, MediaProviderDeps, MediaProviderFactory, MediaProviderFactoryOptions } from './media-provider.ts';
import { createOpenAiProvider } from './openai/openai.provider.ts';
import { createReplicateProvider } from './replicate/replicate.provider.ts';
import { createSwitchboardProvider } from './switchboard/switchboard.provider.ts';

export type { MediaProviderDeps } from './media-provider.ts';

export const MEDIA_PROVIDER_FACTORIES: Readonly<Record<string, MediaProviderFactory>> = {
  kie: createKieProvider,
  fal: createFalProvider,
  replicate: createReplicateProvider,
  openai: createOpenAiProvider,
  switchboard: createSwitchboardProvider,
  google: createGoogleProvider,
  local: createLocalMediaProvider,
};

const MEDIA_PROVIDERS = new ProviderRegistry<MediaProviderFactoryOptions, MediaProviderDeps, MediaProvider>(MEDIA_PROVIDER_FACTORIES);

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

export function createMediaProvider(name: string, config: ProviderConfig, deps: MediaProviderDeps = {}): MediaProvider {
  const factory = MEDIA_PROVIDERS.factory(config.type);
  if (!factory) throw new UnknownProviderTypeError(name, config.type);
  return factory({ name, baseUrl: config.baseUrl, apiKey: config.apiKey, timeoutMs: config.timeoutMs, options: config.options }, deps);
}
