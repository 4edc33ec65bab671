import { type FormEvent, type KeyboardEvent, useState } from 'react';
import { errorMessage, requestData } from '../../api/client.ts';
import type { MessageAccepted } from '../../api/index.ts';
import { navigate } from '../../router.tsx';
import { usdToMicroString } from './agent-types.ts';

/**
 * A new conversation before its first message: nothing exists on the server yet. Sending creates the
 * conversation (in the project, when one is given) and posts the message, then opens it; leaving the
 * page leaves nothing behind. Files are attached once the conversation exists (uploads belong to one).
 */
export function DraftConversation(props: { projectId: string | undefined; onStarted: () => void }) {
  const [draft, setDraft] = useState('');
  const [limit, setLimit] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();

  const send = async (event?: FormEvent) => {
    event?.preventDefault();
    const text = draft.trim();
    if (!text || busy) return;
    const micro = limit.trim() === '' ? undefined : usdToMicroString(limit);
    if (limit.trim() !== '' && !micro) {
      setError(new Error('Enter the spending limit in USD, for example 1.50, or leave it empty for your default.'));
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      const created = await requestData<{ conversationId: string }>('POST', '/api/v1/agent/conversations', { body: props.projectId ? { projectId: props.projectId } : {} });
      const body: Record<string, unknown> = { clientMessageId: crypto.randomUUID(), content: [{ type: 'text', text }] };
      if (micro) body.maxCostMicroUsd = micro;
      const path = `/agent/c/${encodeURIComponent(created.conversationId)}`;
      try {
        await requestData<MessageAccepted>('POST', `/api/v1/agent/conversations/${encodeURIComponent(created.conversationId)}/messages`, { body });
      } finally {
        // The conversation exists now: open it (its composer shows, and can resend, a message that failed).
        props.onStarted();
        navigate(path);
      }
    } catch (e) {
      setError(e);
      setBusy(false);
    }
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void send();
    }
  };

  return (
    <div className="agent-thread">
      <div className="agent-thread-header">
        <h2 data-testid="conversation-title">New conversation</h2>
      </div>
      <p className="muted" data-testid="draft-conversation">
        Nothing is saved until you send the first message{props.projectId ? '; it starts in the project' : ''}.
      </p>
      <form className="chat-input agent-composer" onSubmit={send}>
        <label htmlFor="agent-message">Message</label>
        <textarea id="agent-message" rows={3} value={draft} onChange={(e) => setDraft(e.target.value)} onKeyDown={onKeyDown} aria-describedby="agent-message-hint" />
        <p className="hint" id="agent-message-hint">
          Enter sends; Shift+Enter starts a new line. Files can be attached once the conversation has started.
        </p>
        <div className="agent-composer-options">
          <div className="field field-inline">
            <label htmlFor="agent-limit">Spending limit (USD)</label>
            <input id="agent-limit" inputMode="decimal" placeholder="default" value={limit} onChange={(e) => setLimit(e.target.value)} />
          </div>
          <button type="submit" className="button button-primary" disabled={busy || !draft.trim()}>
            Send
          </button>
        </div>
        {error ? (
          <div className="notice notice-error" role="alert">
            <strong>The conversation was not started: </strong>
            {errorMessage(error)}
          </div>
        ) : null}
      </form>
    </div>
  );
}
