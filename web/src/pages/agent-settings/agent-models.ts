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
