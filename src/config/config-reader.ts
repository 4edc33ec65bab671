import { ConfigError } from '../domain/config-error.ts';

/** Typed access to an untrusted object, naming the full path of a bad value. */
export class ConfigReader {
  readonly path: string;
  private readonly value: Record<string, unknown>;

  constructor(value: unknown, path: string) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw new ConfigError(path || '(root)', 'must be an object');
    }
    this.value = value as Record<string, unknown>;
    this.path = path;
  }

  keys(): string[] {
    return Object.keys(this.value);
  }

  field(name: string): string {
    return this.path ? `${this.path}.${name}` : name;
  }

  /** Refuses keys that are not in `allowed`, so a typo does not silently do nothing. */
  onlyKeys(allowed: readonly string[]): void {
    for (const key of this.keys()) {
      if (!allowed.includes(key)) {
        throw new ConfigError(this.field(key), `unknown setting (allowed: ${allowed.join(', ')})`);
      }
    }
  }

  has(name: string): boolean {
    return this.value[name] !== undefined && this.value[name] !== null;
  }

  raw(name: string): unknown {
    return this.value[name];
  }

  object(name: string): ConfigReader | undefined {
    return this.has(name) ? new ConfigReader(this.value[name], this.field(name)) : undefined;
  }

  string(name: string): string | undefined {
    const v = this.value[name];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') throw new ConfigError(this.field(name), 'must be a string');
    return v;
  }

  requiredString(name: string): string {
    const v = this.string(name);
    if (v === undefined || v === '') throw new ConfigError(this.field(name), 'is required');
    return v;
  }

  number(name: string, bounds: { min?: number; max?: number; integer?: boolean } = {}): number | undefined {
    const v = this.value[name];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'number' || !Number.isFinite(v)) throw new ConfigError(this.field(name), 'must be a number');
    checkBounds(this.field(name), v, bounds);
    return v;
  }

  boolean(name: string): boolean | undefined {
    const v = this.value[name];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'boolean') throw new ConfigError(this.field(name), 'must be true or false');
    return v;
  }

  stringArray(name: string): string[] | undefined {
    const v = this.value[name];
    if (v === undefined || v === null) return undefined;
    if (!Array.isArray(v) || v.some((item) => typeof item !== 'string')) {
      throw new ConfigError(this.field(name), 'must be a list of strings');
    }
    return v as string[];
  }
}

export function checkBounds(
  field: string,
  v: number,
  bounds: { min?: number; max?: number; integer?: boolean },
): void {
  if (bounds.integer && !Number.isInteger(v)) throw new ConfigError(field, `must be an integer, got ${v}`);
  if (bounds.min !== undefined && v < bounds.min) throw new ConfigError(field, `must be at least ${bounds.min}, got ${v}`);
  if (bounds.max !== undefined && v > bounds.max) throw new ConfigError(field, `must be at most ${bounds.max}, got ${v}`);
}
