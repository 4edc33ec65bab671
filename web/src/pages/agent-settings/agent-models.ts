/**
 * The parts of GET /agent/models the settings form reads. The route documents its items only as
 * objects, so each is narrowed here rather than trusted.
 */
export interface AgentModelOption {
  id: string;
  name: string;
  /** TEXT for chat models; IMAGE, VIDEO or MUSIC (or another media type) for media models. */
  type: string;
  executable: boolean;
}

export function toModelOptions(items: readonly Record<string, unknown>[]): AgentModelOption[] {
  const out: AgentModelOption[] = [];
  for (const item of items) {
    if (typeof item.id !== 'string' || typeof item.type !== 'string') continue;
    out.push({ id: item.id, name: typeof item.name === 'string' ? item.name : item.id, type: item.type, executable: item.executable !== false });
  }
  return out;
}

/** "2.50" → "2500000": dollars with at most two decimals to micro-USD, without floating point. */
export function dollarsToMicro(text: string): string | undefined {
  const match = /^\s*\$?\s*(\d{1,9})(?:\.(\d{1,2}))?\s*$/.exec(text);
  if (!match) return undefined;
  const cents = Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
  return String(cents * 10_000);
}

/** "2500000" → "2.50", for the field's initial text. */
export function microToDollars(micro: string): string {
  return (Number(micro) / 1_000_000).toFixed(2);
}
