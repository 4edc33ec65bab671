/** Reading upstream JSON answers: typed members of parsed bodies, and short snippets for messages. */
/** `base` without trailing slashes + `path` (which starts with `/`). */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/u, '')}${path}`;
}

/** The body as JSON, or undefined when it is not JSON. */
export function parseJson(body: Buffer): unknown {
  if (body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A member of a JSON object when it is an object. */
export function recordAt(value: unknown, key: string): Record<string, unknown> | undefined {
  if (!isRecord(value)) return undefined;
  const member = value[key];
  return isRecord(member) ? member : undefined;
}

export function stringAt(value: unknown, key: string): string | undefined {
  if (!isRecord(value)) return undefined;
  const member = value[key];
  return typeof member === 'string' ? member : typeof member === 'number' ? String(member) : undefined;
}

export function numberAt(value: unknown, key: string): number | undefined {
  if (!isRecord(value)) return undefined;
  const member = value[key];
  if (typeof member === 'number' && Number.isFinite(member)) return member;
  if (typeof member === 'string' && member.trim() !== '' && Number.isFinite(Number(member))) return Number(member);
  return undefined;
}

/** Short text of a body for error messages. */
export function bodySnippet(body: Buffer, max = 300): string {
  const text = body.toString('utf8').replace(/\s+/gu, ' ').trim();
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
