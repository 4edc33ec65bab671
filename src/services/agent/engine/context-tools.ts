/**
 * The run's reading of its context references (rule 13): `search_context` finds messages of the
 * referenced conversations in the local full-text index and answers bounded fragments; `read_context`
 * answers one message, a bounded window at a time. Both read only what the run captured when it was
 * created (those conversations, up to that moment) and only while they are still the user's.
 */
import { searchExpression } from '../conversations/conversations.service.ts';
import type { ToolResult } from '../../../domain/agent/tool-result.ts';
import type { EngineDeps } from './engine-deps.ts';
import type { RunState } from './run-state.ts';
import type { StepOutcome } from './step-outcome.ts';
import { recordToolResult } from './tool-results.ts';

const FRAGMENTS = 8;
const FRAGMENT_CHARS = 600;
const READ_CHARS = 4_000;

export interface ContextSource {
  conversationId: string;
  title: string | null;
  until: number;
}

export function contextSourcesOf(contextJson: string | null): ContextSource[] {
  return contextJson === null ? [] : (JSON.parse(contextJson) as ContextSource[]);
}

export async function contextTool(deps: EngineDeps, state: RunState, call: { id: string; name: string }, fields: Record<string, unknown>): Promise<StepOutcome> {
  const { run } = state;
  const sources = contextSourcesOf(run.context_json);
  const bounds = { owner: { userId: run.user_id, storefront: run.storefront }, sources };
  const done = (result: ToolResult) => recordToolResult(deps, state, { ...call, args: fields }, result);
  if (sources.length === 0) return done({ status: 'refused', error: 'this run has no context references' });
  if (call.name === 'search_context') {
    if (typeof fields.query !== 'string' || fields.query.trim() === '' || fields.query.length > 500) return done({ status: 'refused', error: 'query must be a few words' });
    const query = fields.query;
    const rows = await deps.store.searchContext(deps.uow.direct, bounds, (postgres) => searchExpression(query, postgres), FRAGMENTS);
    const words = fields.query.toLowerCase().split(/\s+/).filter((w) => w.length > 1);
    return done({
      status: 'succeeded',
      fragments: rows.map((r) => ({ conversationId: r.conversationId, messageId: r.messageId, fragment: fragmentOf(r.body, words), length: r.body.length })),
    });
  }
  if (typeof fields.messageId !== 'string') return done({ status: 'refused', error: 'messageId is required (from search_context)' });
  const offset = typeof fields.offset === 'number' && Number.isSafeInteger(fields.offset) && fields.offset >= 0 ? fields.offset : 0;
  const message = await deps.store.readContextMessage(deps.uow.direct, bounds, fields.messageId);
  if (!message) return done({ status: 'refused', error: `${fields.messageId.slice(0, 80)} is not a message this run may read` });
  const text = message.text.slice(offset, offset + READ_CHARS);
  return done({ status: 'succeeded', conversationId: message.conversationId, messageId: fields.messageId, offset, text, more: offset + READ_CHARS < message.text.length });
}

/** A window of the text around the first query word it holds. */
function fragmentOf(body: string, words: string[]): string {
  const lower = body.toLowerCase();
  const at = words.map((w) => lower.indexOf(w)).filter((i) => i >= 0).sort((a, b) => a - b)[0] ?? 0;
  const start = Math.max(0, at - FRAGMENT_CHARS / 3);
  const window = body.slice(start, start + FRAGMENT_CHARS);
  return `${start > 0 ? '…' : ''}${window}${start + FRAGMENT_CHARS < body.length ? '…' : ''}`;
}
