import { useCallback, useEffect, useState } from 'react';
import { requestData } from '../../api/client.ts';
import { ErrorNotice, Loading, Page } from '../../components/common.tsx';
import { relativeTime } from '../../format.ts';
import { Link, navigate } from '../../router.tsx';
import type { Conversation, ConversationPage } from './agent-types.ts';
import { ConversationThread } from './ConversationThread.tsx';
import { DraftConversation } from './DraftConversation.tsx';

const SEARCH_DELAY_MS = 250;
const PAGE_SIZE = 30;

/**
 * The agent: conversations (latest activity first, searched in titles and message texts) beside the
 * open conversation's live thread.
 */
export function AgentPage(props: { conversationId?: string; draft?: { projectId: string | undefined } }) {
  const [query, setQuery] = useState('');
  const [search, setSearch] = useState('');
  const [list, setList] = useState<{ items: Conversation[]; nextCursor: string | null } | undefined>();
  const [error, setError] = useState<unknown>();
  const [tick, setTick] = useState(0);

  useEffect(() => {
    const timer = window.setTimeout(() => setSearch(query.trim()), SEARCH_DELAY_MS);
    return () => window.clearTimeout(timer);
  }, [query]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `tick` reloads the list after a change.
  useEffect(() => {
    const controller = new AbortController();
    const params = new URLSearchParams({ limit: String(PAGE_SIZE) });
    if (search) params.set('q', search);
    requestData<ConversationPage>('GET', `/api/v1/agent/conversations?${params}`, { signal: controller.signal }).then(
      (page) => {
        setList(page);
        setError(undefined);
      },
      (e: unknown) => {
        if (!controller.signal.aborted) setError(e);
      },
    );
    return () => controller.abort();
  }, [search, tick]);

  const more = async () => {
    if (!list?.nextCursor) return;
    const params = new URLSearchParams({ limit: String(PAGE_SIZE), cursor: list.nextCursor });
    if (search) params.set('q', search);
    try {
      const page = await requestData<ConversationPage>('GET', `/api/v1/agent/conversations?${params}`);
      setList({ items: [...list.items, ...page.items], nextCursor: page.nextCursor });
    } catch (e) {
      setError(e);
    }
  };

  // A new conversation is a draft until its first message: nothing is created on the server before.
  const create = () => navigate('/agent/new');

  const changed = useCallback(() => setTick((t) => t + 1), []);

  return (
    <Page
      title="Agent"
      lead="Describe what to make and set a spending limit: the agent plans the model calls, runs them at their normal prices and shows every step."
      actions={
        <>
          <Link to="/agent/settings">Agent settings</Link>{' '}
          <button type="button" className="button button-primary" onClick={create}>
            New conversation
          </button>
        </>
      }
    >
      <div className="agent-layout">
        <nav className="panel agent-conversations" aria-label="Conversations">
          <div className="field">
            <label htmlFor="agent-search">Search conversations</label>
            <input id="agent-search" type="search" value={query} onChange={(e) => setQuery(e.target.value)} placeholder="Titles and messages" />
          </div>
          <ErrorNotice error={error} what="Conversations could not be loaded" />
          {list === undefined && !error ? <Loading label="Loading conversations…" /> : null}
          <ul className="plain-list" data-testid="conversation-list">
            {list?.items.length === 0 ? <li className="muted">{search ? 'No conversation matches.' : 'No conversations yet.'}</li> : null}
            {list?.items.map((c) => (
              <li key={c.conversationId}>
                <Link to={`/agent/c/${encodeURIComponent(c.conversationId)}`} aria-current={c.conversationId === props.conversationId ? 'page' : undefined} className={c.conversationId === props.conversationId ? 'agent-conversation-current' : undefined}>
                  {c.title ?? 'Untitled conversation'}
                </Link>
                <span className="small muted"> · {relativeTime(c.lastActivityAt)}</span>
                {c.activeRunId ? <span className="badge badge-processing">working</span> : null}
              </li>
            ))}
          </ul>
          {list?.nextCursor ? (
            <button type="button" className="button button-small" onClick={more}>
              More
            </button>
          ) : null}
        </nav>
        <section className="agent-main" aria-label="Conversation">
          {props.draft ? (
            <DraftConversation projectId={props.draft.projectId} onStarted={changed} />
          ) : props.conversationId ? (
            <ConversationThread key={props.conversationId} conversationId={props.conversationId} onChanged={changed} />
          ) : (
            <p className="empty">Choose a conversation, or start a new one.</p>
          )}
        </section>
      </div>
    </Page>
  );
}
