import { useEffect, useId, useState } from 'react';
import { requestData } from '../../api/client.ts';
import { relativeTime } from '../../format.ts';
import type { ConversationPage } from './agent-types.ts';

/** The server keeps at most 20 references per conversation (MAX_CONTEXT_REFERENCES). */
export const MAX_REFERENCES = 20;
const RESULTS = 8;
const SEARCH_DELAY_MS = 250;
const MAX_QUERY = 200;

export interface PickedReference {
  conversationId: string;
  title: string | null;
}

export function referenceTitle(title: string | null): string {
  return title ?? 'Untitled conversation';
}

/**
 * Other conversations a conversation's runs may read, as removable chips, and a search of your
 * conversations by title (and message text) to add one. Nothing is saved here: the owner decides when.
 */
export function ContextReferencePicker(props: {
  selected: PickedReference[];
  onAdd: (reference: PickedReference) => void;
  onRemove: (conversationId: string) => void;
  /** The conversation itself, which cannot reference itself. */
  excludeId?: string | undefined;
  disabled?: boolean;
}) {
  const id = useId();
  const [open, setOpen] = useState(false);
  const [query, setQuery] = useState('');
  const [search, setSearch] = useState('');
  const [results, setResults] = useState<Array<PickedReference & { lastActivityAt: string }> | undefined>();
  const [error, setError] = useState(false);
  const full = props.selected.length >= MAX_REFERENCES;

  useEffect(() => {
    const timer = window.setTimeout(() => setSearch(query.trim()), SEARCH_DELAY_MS);
    return () => window.clearTimeout(timer);
  }, [query]);

  useEffect(() => {
    if (!open) return;
    const controller = new AbortController();
    const params = new URLSearchParams({ limit: String(RESULTS + 1) });
    if (search) params.set('q', search);
    requestData<ConversationPage>('GET', `/api/v1/agent/conversations?${params}`, { signal: controller.signal }).then(
      (page) => {
        setResults(page.items.map((c) => ({ conversationId: c.conversationId, title: c.title, lastActivityAt: c.lastActivityAt })));
        setError(false);
      },
      () => {
        if (!controller.signal.aborted) setError(true);
      },
    );
    return () => controller.abort();
  }, [open, search]);

  const chosen = new Set(props.selected.map((r) => r.conversationId));
  const offered = (results ?? []).filter((r) => r.conversationId !== props.excludeId && !chosen.has(r.conversationId)).slice(0, RESULTS);

  return (
    <div className="agent-context" data-testid="context-references">
      <span className="small" id={`${id}-label`}>
        Context from other conversations
      </span>
      <ul className="plain-list agent-chips" aria-labelledby={`${id}-label`}>
        {props.selected.length === 0 ? <li className="small muted">None: the agent reads only this conversation.</li> : null}
        {props.selected.map((r) => (
          <li key={r.conversationId} className="agent-chip" data-testid="context-chip">
            <span className="agent-chip-label">{referenceTitle(r.title)}</span>
            <button type="button" className="agent-chip-remove" onClick={() => props.onRemove(r.conversationId)} disabled={props.disabled} aria-label={`Remove ${referenceTitle(r.title)} from the context`}>
              ×
            </button>
          </li>
        ))}
      </ul>
      {open ? (
        <div className="agent-context-search">
          <div className="field">
            <label htmlFor={`${id}-search`}>Find a conversation</label>
            <input id={`${id}-search`} type="search" maxLength={MAX_QUERY} value={query} onChange={(e) => setQuery(e.target.value)} placeholder="Title or message text" />
          </div>
          {error ? <p className="small">Your conversations could not be loaded.</p> : null}
          <ul className="plain-list agent-context-results" aria-label="Conversations to add">
            {results !== undefined && offered.length === 0 ? <li className="small muted">{search ? 'No other conversation matches.' : 'No other conversations yet.'}</li> : null}
            {offered.map((r) => (
              <li key={r.conversationId} className="agent-context-result">
                <button type="button" className="button button-small" disabled={props.disabled || full} onClick={() => props.onAdd({ conversationId: r.conversationId, title: r.title })}>
                  Add {referenceTitle(r.title)}
                </button>
                <span className="small muted"> · {relativeTime(r.lastActivityAt)}</span>
              </li>
            ))}
          </ul>
          {full ? <p className="small">At most {MAX_REFERENCES} conversations can be referenced.</p> : null}
          <button type="button" className="button button-small" onClick={() => setOpen(false)}>
            Done
          </button>
        </div>
      ) : (
        <button type="button" className="button button-small" onClick={() => setOpen(true)} disabled={props.disabled || full}>
          Add context
        </button>
      )}
    </div>
  );
}
