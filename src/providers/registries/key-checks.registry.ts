/**
 * Provider `type` → the probe that tests one of its keys (the admin API's provider test). Every style
 * of the chat and media tables has one: the OpenAI-compatible vendors, `anthropic`, the media styles,
 * and `local`, which has no upstream to ask. Adding a style is its probe file and one line here.
 */
import { anthropicKeyProbe } from '../chat/anthropic/anthropic-key-probe.ts';
import { openAiCompatibleKeyProbe } from '../chat/open-ai-base/openai-key-probe.ts';
import { OPENAI_COMPATIBLE_VENDORS } from '../chat/open-ai-base/openai-compatible.vendors.ts';
import type { KeyCheckTarget, KeyProbe } from '../key-check/key-check.types.ts';
import { falKeyProbe } from '../media/fal/fal-key-probe.ts';
import { googleKeyProbe } from '../media/google/google-key-probe.ts';
import { kieKeyProbe } from '../media/kie/kie-key-probe.ts';
import { replicateKeyProbe } from '../media/replicate/replicate-key-probe.ts';
import { switchboardKeyProbe } from '../media/switchboard/switchboard-key-probe.ts';
import { type ProviderFactories, type ProviderFactory, ProviderRegistry } from '../provider-registry.ts';

/** Probes are pure descriptions of a call: they share nothing with the composition root. */
export type KeyProbeDeps = Readonly<Record<string, never>>;

type KeyProbeFactory = ProviderFactory<KeyCheckTarget, KeyProbeDeps, KeyProbe>;

export const KEY_PROBE_FACTORIES: ProviderFactories<KeyCheckTarget, KeyProbeDeps, KeyProbe> = {
  // `openai` is both a chat and a media style: one base URL (…/v1) and one Bearer key for both.
  ...Object.fromEntries(Object.entries(OPENAI_COMPATIBLE_VENDORS).map(([type, vendor]): [string, KeyProbeFactory] => [type, (target) => openAiCompatibleKeyProbe(vendor, target)])),
  anthropic: anthropicKeyProbe,
  kie: kieKeyProbe,
  fal: falKeyProbe,
  replicate: replicateKeyProbe,
  switchboard: switchboardKeyProbe,
  google: googleKeyProbe,
  local: () => ({ kind: 'none', call: 'none (the local provider has no upstream)' }),
};

const KEY_PROBES = new ProviderRegistry(KEY_PROBE_FACTORIES);

/** The probe of a target's style; undefined for a type no table knows. */
export function keyProbeFor(target: KeyCheckTarget): KeyProbe | undefined {
  return KEY_PROBES.createIfKnown(target.type, target, {});
}

export function keyProbeTypes(): string[] {
  return KEY_PROBES.types();
}
