import { type FormEvent, useState } from 'react';
import { errorMessage, requestData } from '../../api/client.ts';
import { ErrorNotice } from '../../components/common.tsx';
import type { PendingAction } from './agent-types.ts';

/**
 * A question the run asked (answered with a choice or in words, as a reply that keeps the run's limit)
 * or a model change it proposes (accepted or declined with the proposal's version and hash, under an
 * idempotency key so a double click decides once).
 */
export function PendingActionCard(props: { runId: string; conversationId: string; action: PendingAction; onDone: () => void }) {
  const { action, runId } = props;
  const [answer, setAnswer] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [idempotencyKey] = useState(() => crypto.randomUUID());

  const run = async (call: () => Promise<unknown>) => {
    setBusy(true);
    setError(undefined);
    try {
      await call();
      props.onDone();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  const reply = (text: string) =>
    run(() =>
      requestData('POST', `/api/v1/agent/conversations/${encodeURIComponent(props.conversationId)}/messages`, {
        body: { clientMessageId: `${action.pendingActionId}:${encodeURIComponent(text)}`.slice(0, 200), content: [{ type: 'text', text }], replyToRunId: runId, questionId: action.pendingActionId },
      }),
    );

  const decide = (accept: boolean) =>
    run(() =>
      requestData('POST', `/api/v1/agent/runs/${encodeURIComponent(runId)}/decisions`, {
        headers: { 'idempotency-key': `${idempotencyKey}:${accept ? 'accept' : 'decline'}` },
        body: { pendingActionId: action.pendingActionId, version: action.version, proposalHash: action.proposalHash, input: { accept } },
      }),
    );

  if (action.kind === 'question') {
    const submit = (event: FormEvent) => {
      event.preventDefault();
      if (answer.trim()) void reply(answer.trim());
    };
    const inputId = `answer-${action.pendingActionId}`;
    return (
      <div className="notice notice-info agent-action" data-testid="pending-question">
        <p>
          <strong>Question:</strong> {action.question}
        </p>
        {action.choices?.length ? (
          <div className="actions">
            {action.choices.map((choice) => (
              <button key={choice} type="button" className="button" disabled={busy} onClick={() => void reply(choice)}>
                {choice}
              </button>
            ))}
          </div>
        ) : null}
        <form className="inline-form" onSubmit={submit}>
          <div className="field field-inline">
            <label htmlFor={inputId}>Your answer</label>
            <input id={inputId} value={answer} onChange={(e) => setAnswer(e.target.value)} />
          </div>
          <button type="submit" className="button button-primary" disabled={busy || !answer.trim()}>
            Answer
          </button>
        </form>
        <ErrorNotice error={error} what="The answer was not sent" />
      </div>
    );
  }

  const proposal = action.proposal ?? {};
  return (
    <div className="notice notice-info agent-action" data-testid="pending-decision">
      <p>
        <strong>Switch {proposal.modality ?? 'model'}</strong>
        {proposal.fromModelId ? ` from ${proposal.fromModelId}` : ''} to <strong>{proposal.toModelId}</strong>?
        {proposal.reason ? ` ${proposal.reason}` : ''}
      </p>
      {action.status === 'expired' ? <p className="small">This proposal expired; the run will ask again.</p> : null}
      <div className="actions">
        <button type="button" className="button button-primary" disabled={busy || action.status !== 'pending'} onClick={() => void decide(true)}>
          Accept
        </button>
        <button type="button" className="button" disabled={busy || action.status !== 'pending'} onClick={() => void decide(false)}>
          Decline
        </button>
      </div>
      {error ? <p className="small">{errorMessage(error)}</p> : null}
    </div>
  );
}
