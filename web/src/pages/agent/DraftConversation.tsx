import { type FormEvent, type KeyboardEvent, useRef, useState } from 'react';
import { ApiError, errorMessage, requestData } from '../../api/client.ts';
import type { MessageAccepted } from '../../api/index.ts';
import { navigate } from '../../router.tsx';
import { usdToMicroString } from '../../format.ts';
import { ConversationSetup, DEFAULT_SETUP, type SetupChoice, setupFields } from './ConversationSetup.tsx';
import { type EmptyBalance, EmptyBalanceNotice, emptyBalance } from './EmptyBalance.tsx';
import { ContextReferencePicker, MAX_REFERENCES, type PickedReference } from './ContextReferencePicker.tsx';
import { isSchemaRefusal, StructuredOutputSection, useStructuredOutput } from './StructuredOutputSection.tsx';
import { useAgentChoices } from './useAgentChoices.ts';

/**
 * A new conversation before its first message: nothing exists on the server yet. Sending creates the
 * conversation (in the project, when one is given, with the chosen mode, model and profile), saves
 * its context references, and posts the message, then opens it; leaving the page leaves nothing
 * behind. Files are attached once the conversation exists (uploads belong to one).
 */
export function DraftConversation(props: { projectId: string | undefined; onStarted: () => void }) {
  const [draft, setDraft] = useState('');
  const [limit, setLimit] = useState('');
  const [setup, setSetup] = useState<SetupChoice>(DEFAULT_SETUP);
  const [modelError, setModelError] = useState<string | undefined>();
  const [references, setReferences] = useState<PickedReference[]>([]);
  const [busy, setBusy] = useState(false);
  /** Set when the conversation was created but its first message was refused for its schema. */
  const [created, setCreated] = useState<string | undefined>();
  const [error, setError] = useState<unknown>();
  const [empty, setEmpty] = useState<EmptyBalance>();
  const choices = useAgentChoices();
  const output = useStructuredOutput();
  const schemaInput = useRef<HTMLTextAreaElement>(null);

  const send = async (event?: FormEvent) => {
    event?.preventDefault();
    const text = draft.trim();
    if (!text || busy) return;
    const micro = limit.trim() === '' ? undefined : usdToMicroString(limit);
    if (limit.trim() !== '' && !micro) {
      setError(new Error('Enter the spending limit in USD, for example 1.50, or leave it empty for your default.'));
      return;
    }
    if (setup.mode === 'manual' && !setup.selectedModelId) {
      setModelError('Choose the model that makes the result, or switch to Automatic.');
      return;
    }
    // A schema that is not valid JSON (or too long) is refused here: its error is already in place.
    if (output.check.kind === 'invalid') {
      schemaInput.current?.focus();
      return;
    }
    setBusy(true);
    setError(undefined);
    setEmpty(undefined);
    setModelError(undefined);
    try {
      // An empty balance is refused before the conversation exists, so the draft and its choices stay here.
      const broke = await emptyBalance();
      if (broke) {
        setEmpty(broke);
        setBusy(false);
        return;
      }
      const conversationId = created ?? (await requestData<{ conversationId: string }>('POST', '/api/v1/agent/conversations', { body: { ...(props.projectId ? { projectId: props.projectId } : {}), ...setupFields(setup) } })).conversationId;
      const base = `/api/v1/agent/conversations/${encodeURIComponent(conversationId)}`;
      let failed: unknown;
      try {
        if (references.length && !created) {
          await requestData('PUT', `${base}/context-references`, {
            body: { expectedVersion: 0, references: references.map((r) => ({ targetType: 'conversation', targetId: r.conversationId })) },
          });
        }
        const body: Record<string, unknown> = { clientMessageId: crypto.randomUUID(), content: [{ type: 'text', text }], ...output.fields() };
        if (micro) body.maxCostMicroUsd = micro;
        await requestData<MessageAccepted>('POST', `${base}/messages`, { body });
      } catch (e) {
        failed = e;
      }
      props.onStarted();
      const brokeMeanwhile = failed instanceof ApiError && failed.code === 'insufficient_balance' ? await emptyBalance() : undefined;
      if (brokeMeanwhile) {
        // Spent elsewhere since the check: the conversation exists, the message stays here to send again.
        setCreated(conversationId);
        setEmpty(brokeMeanwhile);
        setBusy(false);
        return;
      }
      if (isSchemaRefusal(failed)) {
        // The conversation exists, its first message does not: the schema is fixed here and sent again into it.
        setCreated(conversationId);
        output.setRefusal(errorMessage(failed));
        setBusy(false);
        schemaInput.current?.focus();
        return;
      }
      // The conversation exists now: open it (its composer shows, and can resend, a message that failed).
      navigate(`/agent/c/${encodeURIComponent(conversationId)}`);
    } catch (e) {
      if (e instanceof ApiError && e.param === 'selectedModelId') setModelError(errorMessage(e));
      else setError(e);
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
        {created ? (
          <p className="small" data-testid="draft-created">
            The conversation was created with your choices; {empty ? 'add funds' : 'fix the result schema'} and send again.
          </p>
        ) : (
          <>
            <ConversationSetup
          choice={setup}
          onChange={(next) => {
            setSetup(next);
            setModelError(undefined);
          }}
          models={choices.data?.models}
          profiles={choices.data?.profiles}
          loadError={choices.error}
          modelError={modelError}
        />
        <ContextReferencePicker
          selected={references}
          onAdd={(r) => setReferences((list) => (list.length >= MAX_REFERENCES || list.some((x) => x.conversationId === r.conversationId) ? list : [...list, r]))}
          onRemove={(id) => setReferences((list) => list.filter((r) => r.conversationId !== id))}
          disabled={busy}
        />
          </>
        )}
        <label htmlFor="agent-message">Message</label>
        <textarea id="agent-message" rows={3} value={draft} onChange={(e) => setDraft(e.target.value)} onKeyDown={onKeyDown} aria-describedby="agent-message-hint" />
        <p className="hint" id="agent-message-hint">
          Enter sends; Shift+Enter starts a new line. Files can be attached once the conversation has started.
        </p>
        <StructuredOutputSection output={output} idPrefix="draft" textareaRef={schemaInput} />
        <div className="agent-composer-options">
          <div className="field field-inline">
            <label htmlFor="agent-limit">Spending limit (USD)</label>
            <input id="agent-limit" inputMode="decimal" placeholder="default" value={limit} onChange={(e) => setLimit(e.target.value)} />
          </div>
          <button type="submit" className="button button-primary" disabled={busy || !draft.trim()}>
            Send
          </button>
        </div>
        {empty ? <EmptyBalanceNotice money={empty} /> : null}
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
