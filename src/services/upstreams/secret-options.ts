/**
 * A provider's `options` may hold secrets of their own (Replicate's `openaiApiKey` and
 * `webhookSecret`, extra `headers` such as an Authorization): the values under a secret-looking name
 * are sealed at rest like the keys, opened only in memory, and shown back or exported as a hint.
 */
import { secretHint } from '../../domain/upstreams/secret-hint.ts';

/** Names whose value is a secret, whatever the provider: key, secret, token, password, auth…, headers. */
const SECRET_OPTION = /(key|secret|token|password|passwd|auth|credential|headers)/i;

/** How a sealed value sits in the stored options: `{"$sealed": "sb1.…"}`. */
const SEALED = '$sealed';

export interface Sealer {
  seal(secret: string): string;
}

export interface Opener {
  open(sealed: string): string;
}

export function isSecretOption(name: string): boolean {
  return SECRET_OPTION.test(name);
}

/** The options as stored: every string under a secret name (nested too, for headers) sealed. */
export function sealOptions(options: Record<string, unknown>, box: Sealer): Record<string, unknown> {
  return mapSecrets(options, (value) => ({ [SEALED]: box.seal(value) }));
}

/** The options as the provider uses them; throws when a sealed value does not open. */
export function openOptions(options: Record<string, unknown>, box: Opener): Record<string, unknown> {
  return mapTree(options, (value) => (isSealed(value) ? box.open(value[SEALED]) : undefined));
}

/** The options as the operator sees them (answers, audit, export): every secret as its hint. */
export function maskOptions(options: Record<string, unknown>): Record<string, unknown> {
  const masked = mapSecrets(options, (value) => secretHint(value) || '…');
  return mapTree(masked, (value) => (isSealed(value) ? '…' : undefined));
}

function isSealed(value: unknown): value is { [SEALED]: string } {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && typeof (value as Record<string, unknown>)[SEALED] === 'string' && Object.keys(value).length === 1;
}

/** Replaces each string found under a secret name (at any depth below it). */
function mapSecrets(options: Record<string, unknown>, replace: (value: string) => unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(options)) {
    out[name] = isSecretOption(name) ? replaceStrings(value, replace) : value;
  }
  return out;
}

function replaceStrings(value: unknown, replace: (value: string) => unknown): unknown {
  if (typeof value === 'string') return replace(value);
  if (Array.isArray(value)) return value.map((v) => replaceStrings(v, replace));
  if (value !== null && typeof value === 'object' && !isSealed(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, replaceStrings(v, replace)]));
  }
  return value;
}

/** Walks the tree; where `swap` answers a value, it takes the node's place. */
function mapTree(options: Record<string, unknown>, swap: (value: unknown) => unknown): Record<string, unknown> {
  const walk = (value: unknown): unknown => {
    const swapped = swap(value);
    if (swapped !== undefined) return swapped;
    if (Array.isArray(value)) return value.map(walk);
    if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v)]));
    return value;
  };
  return walk(options) as Record<string, unknown>;
}
