/**
 * Cross-field rules. A rule reads the field-validated input and throws `invalid_input` whose message
 * starts with the offending field's path. Helpers cover the common shapes; families write the rest
 * inline.
 */
import type { AppError } from '../../errors.ts';
import { invalidInput } from '../../errors.ts';

export interface RuleContext {
  /** Field-validated input with defaults applied; `normalize` may change it. */
  readonly input: Record<string, unknown>;
  /** Fields the caller supplied (not filled in by a default). */
  readonly given: ReadonlySet<string>;
  readonly modelId: string;
  readonly variant: string | undefined;
}

export type Rule = (ctx: RuleContext) => void;

/** `input.a.b` from `a.b`, `input.a[1].b` from `a[1].b`. */
export function path(field: string): string {
  return `input.${field}`;
}

/** An invalid_input error for `field` (written without the `input.` prefix); the message follows the path. */
export function refuse(field: string, message: string): AppError {
  return invalidInput(`${path(field)} ${message}`, path(field));
}

/** Present and not empty (an empty array or string counts as absent). */
export function has(input: Record<string, unknown>, name: string): boolean {
  const v = input[name];
  if (v === undefined || v === null) return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'string') return v.trim() !== '';
  return true;
}

export function count(input: Record<string, unknown>, name: string): number {
  const v = input[name];
  return Array.isArray(v) ? v.length : 0;
}

export function str(input: Record<string, unknown>, name: string): string | undefined {
  const v = input[name];
  return typeof v === 'string' ? v : undefined;
}

export function numberOf(input: Record<string, unknown>, name: string): number | undefined {
  const v = input[name];
  return typeof v === 'number' ? v : undefined;
}

export function strings(input: Record<string, unknown>, name: string): string[] {
  const v = input[name];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

export interface RoleItem {
  url: string;
  role: string;
}

export function roleItems(input: Record<string, unknown>, name = 'imageWithRoles'): RoleItem[] {
  const v = input[name];
  if (!Array.isArray(v)) return [];
  return v.map((item) => {
    const o = item as Record<string, unknown>;
    return { url: String(o.url), role: String(o.role) };
  });
}

function names(fields: readonly string[]): string {
  const paths = fields.map(path);
  if (paths.length <= 1) return paths.join('');
  return `${paths.slice(0, -1).join(', ')} or ${paths[paths.length - 1]}`;
}

/** `field` cannot be given together with any of `others`. */
export function notWith(field: string, others: readonly string[], why = ''): Rule {
  return ({ input }) => {
    if (!has(input, field)) return;
    const clash = others.find((o) => has(input, o));
    if (clash) throw refuse(field, `cannot be combined with ${path(clash)}${why}`);
  };
}

/** `field` needs at least one of `others`. */
export function needsOneOf(field: string, others: readonly string[]): Rule {
  return ({ input }) => {
    if (has(input, field) && !others.some((o) => has(input, o))) throw refuse(field, `requires ${names(others)}`);
  };
}

/** Each of the two needs the other. */
export function together(a: string, b: string): Rule {
  return ({ input }) => {
    if (has(input, a) && !has(input, b)) throw refuse(b, `is required when ${path(a)} is given (they go together)`);
    if (has(input, b) && !has(input, a)) throw refuse(a, `is required when ${path(b)} is given (they go together)`);
  };
}

/** `field` is required unless one of `unless` is given. */
export function requiredUnless(field: string, unless: readonly string[]): Rule {
  return ({ input }) => {
    if (!has(input, field) && !unless.some((o) => has(input, o))) throw refuse(field, `is required unless ${names(unless)} is given`);
  };
}

/** Exactly one of the fields. */
export function exactlyOneOf(fields: readonly string[]): Rule {
  return ({ input }) => {
    const present = fields.filter((f) => has(input, f));
    const first = fields[0] ?? '';
    if (present.length === 0) throw refuse(first, `or ${names(fields.slice(1))} is required (exactly one of them)`);
    if (present.length > 1) throw refuse(present[1] ?? first, `cannot be combined with ${path(present[0] ?? first)} (give exactly one of ${names(fields)})`);
  };
}

/**
 * imageWithRoles: no frame role twice, and a last frame needs a first frame (which `firstFrameFrom`,
 * a field whose first item is the start frame, may supply instead).
 */
export function frameRoles(field = 'imageWithRoles', firstFrameFrom?: string): Rule {
  return ({ input }) => {
    const items = roleItems(input, field);
    const seen = new Set<string>();
    items.forEach((item, i) => {
      if ((item.role === 'first_frame' || item.role === 'last_frame') && seen.has(item.role)) {
        throw refuse(`${field}[${i}].role`, `repeats ${item.role}; give at most one first_frame and one last_frame`);
      }
      seen.add(item.role);
    });
    const last = items.findIndex((item) => item.role === 'last_frame');
    const supplied = firstFrameFrom !== undefined && has(input, firstFrameFrom);
    if (last >= 0 && !seen.has('first_frame') && !supplied) throw refuse(`${field}[${last}].role`, 'last_frame requires an item with role first_frame');
  };
}
