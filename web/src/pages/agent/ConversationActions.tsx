import { type FormEvent, useState } from 'react';
import { requestData } from '../../api/client.ts';
import { navigate } from '../../router.tsx';
import type { Conversation } from './agent-types.ts';

/**
 * Rename and delete a conversation with the inline steps the other pages use (a form in place, a
 * confirm beside the button), not the browser's prompt and confirm dialogs.
 */
export function ConversationActions(props: { conversation: Conversation | undefined; base: string; onChanged: () => void; onError: (error: unknown) => void }) {
  const { conversation } = props;
  const [mode, setMode] = useState<'idle' | 'renaming' | 'confirming'>('idle');
  const [title, setTitle] = useState('');

  const rename = async (event: FormEvent) => {
    event.preventDefault();
    if (!conversation || !title.trim()) return;
    try {
      await requestData('PATCH', props.base, { body: { title: title.trim(), expectedVersion: conversation.version } });
      setMode('idle');
      props.onChanged();
    } catch (e) {
      props.onError(e);
    }
  };
  const remove = async () => {
    try {
      await requestData('DELETE', props.base);
      props.onChanged();
      navigate('/agent');
    } catch (e) {
      props.onError(e);
    }
  };

  if (mode === 'renaming') {
    return (
      <form className="inline-form conversation-rename" onSubmit={rename}>
        <label htmlFor="conversation-title-input" className="visually-hidden">
          New title
        </label>
        <input id="conversation-title-input" required maxLength={200} value={title} onChange={(e) => setTitle(e.target.value)} />
        <button type="submit" className="button button-small" disabled={!title.trim()}>
          Save title
        </button>
        <button type="button" className="button button-small" onClick={() => setMode('idle')}>
          Cancel
        </button>
      </form>
    );
  }
  if (mode === 'confirming') {
    return (
      <div className="actions">
        <span className="small">Delete it? Its active runs are stopped.</span>{' '}
        <button type="button" className="button button-small button-danger" onClick={remove}>
          Confirm delete
        </button>
        <button type="button" className="button button-small" onClick={() => setMode('idle')}>
          Cancel
        </button>
      </div>
    );
  }
  return (
    <div className="actions">
      <button
        type="button"
        className="button button-small"
        onClick={() => {
          setTitle(conversation?.title ?? '');
          setMode('renaming');
        }}
        disabled={!conversation}
      >
        Rename
      </button>
      <button type="button" className="button button-small button-danger" onClick={() => setMode('confirming')} disabled={!conversation}>
        Delete
      </button>
    </div>
  );
}
