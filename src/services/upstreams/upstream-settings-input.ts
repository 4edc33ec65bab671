/**
 * What the admin API accepts for a live upstream change, read into checked values with the config
 * file's parser (upstream-config.ts), so a live change is refused exactly where the file would be.
 * Every refusal is a 400 `invalid_input` naming the field.
 */
import { ConfigReader } from '../../config/config-reader.ts';
import type { ProviderConfig } from '../../config/config.types.ts';
import { PROVIDER_NAME, parseProviderFields } from '../../config/upstream-config.ts';
import { ConfigError } from '../../domain/config-error.ts';
import { invalidInput } from '../../domain/errors.ts';

/** At most this many keys per provider: a pool, not a store of secrets. */
export const MAX_KEYS_PER_PROVIDER = 64;
const MAX_SECRET_CHARS = 4096;
const MAX_LABEL_CHARS = 100;
const KEY_ID = /^(file|upk_[A-Za-z0-9]{8,40})$/;

/** A key of a PUT: a new secret, or a key the provider has already (by id), with its settings. */
export type KeyInput = { secret: string; id?: undefined; weight?: number; label?: string | null; enabled?: boolean } | { id: string; secret?: undefined; weight?: number; label?: string | null; enabled?: boolean };

export interface KeySettings {
  weight?: number;
  label?: string | null;
  enabled?: boolean;
}

/** Runs a parse and turns the config parser's refusal into the API's. */
export function checked<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof ConfigError) throw invalidInput(error.message.replace(/^invalid configuration: /, ''), error.field);
    throw error;
  }
}

export function checkProviderName(name: string): void {
  if (!PROVIDER_NAME.test(name)) throw invalidInput('a provider name is 1 to 63 lowercase letters, digits, _ or -, starting with a letter or digit', 'name');
}

export function readerOf(body: unknown, path = ''): ConfigReader {
  return checked(() => new ConfigReader(body ?? {}, path));
}

/** `expectedVersion`: the version the caller read (0: the setting must not be stored live yet). */
export function expectedVersionOf(r: ConfigReader): number | undefined {
  return checked(() => r.number('expectedVersion', { min: 0, max: Number.MAX_SAFE_INTEGER, integer: true }));
}

/** A provider's fields other than its keys, as the file takes them. */
export function providerFieldsOf(r: ConfigReader, isKnownType: (type: string) => boolean, knownTypes: () => string[]): Omit<ProviderConfig, 'apiKey'> & { enabled: boolean } {
  return checked(() => {
    const fields = parseProviderFields(r);
    if (!isKnownType(fields.type)) throw new ConfigError(r.field('type'), `unknown API style ${JSON.stringify(fields.type)} (known: ${knownTypes().join(', ')})`);
    return { ...fields, enabled: r.boolean('enabled') ?? true };
  });
}

export function keySettingsOf(r: ConfigReader): KeySettings {
  return checked(() => {
    const settings: KeySettings = {};
    const weight = r.number('weight', { max: 1_000_000 });
    if (weight !== undefined) {
      if (weight <= 0) throw new ConfigError(r.field('weight'), 'must be a positive number');
      settings.weight = weight;
    }
    if (r.raw('label') !== undefined) {
      // null or '' clears it.
      const label = r.raw('label') === null ? '' : (r.string('label') ?? '');
      if (label.length > MAX_LABEL_CHARS) throw new ConfigError(r.field('label'), `may hold at most ${MAX_LABEL_CHARS} characters`);
      settings.label = label === '' ? null : label;
    }
    const enabled = r.boolean('enabled');
    if (enabled !== undefined) settings.enabled = enabled;
    return settings;
  });
}

/** A secret as it will go into a header: printable, no spaces around, no control characters. */
export function secretOf(r: ConfigReader): string {
  return checked(() => {
    const secret = r.requiredString('secret');
    // The value itself never appears in the message.
    if (secret.length === 0 || secret.length > MAX_SECRET_CHARS) throw new ConfigError(r.field('secret'), `must be 1 to ${MAX_SECRET_CHARS} characters`);
    if (secret.trim() !== secret || hasControlCharacter(secret)) throw new ConfigError(r.field('secret'), 'may not hold control characters or surrounding spaces');
    return secret;
  });
}

export function keyInputsOf(raw: unknown, field: string): KeyInput[] {
  return checked(() => {
    if (!Array.isArray(raw)) throw new ConfigError(field, 'must be a list of {secret, weight?, label?, enabled?} or {id, weight?, label?, enabled?}');
    if (raw.length > MAX_KEYS_PER_PROVIDER) throw new ConfigError(field, `may hold at most ${MAX_KEYS_PER_PROVIDER} keys`);
    const ids = new Set<string>();
    return raw.map((item: unknown, i): KeyInput => {
      const r = new ConfigReader(item, `${field}[${i}]`);
      // `hint` is what GET and the export show; it is ignored, so their keys can be sent back as they are.
      r.onlyKeys(['secret', 'id', 'hint', 'weight', 'label', 'enabled']);
      const settings = keySettingsOf(r);
      if (r.has('secret')) {
        if (r.has('id')) throw new ConfigError(r.field('id'), 'give either a new secret or the id of a key the provider has');
        return { ...settings, secret: secretOf(r) };
      }
      const id = r.string('id');
      if (id === undefined) throw new ConfigError(r.path, 'needs a secret (a new key) or an id (a key the provider has)');
      if (!KEY_ID.test(id)) throw new ConfigError(r.field('id'), 'is not a key id (file, or upk_…)');
      if (ids.has(id)) throw new ConfigError(r.field('id'), 'names a key listed already');
      ids.add(id);
      return { ...settings, id };
    });
  });
}

function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}
