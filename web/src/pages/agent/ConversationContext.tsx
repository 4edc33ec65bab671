import { useCallback, useEffect, useState } from 'react';
import { ApiError, errorMessage, requestData } from '../../api/client.ts';
import type { ContextReferences } from '../../api/index.ts';
import { ContextReferencePicker, type PickedReference } from './ContextReferencePicker.tsx';

/**
 * An open conversation's context references: read with their version, and saved as a whole at each
 * add or remove (the API replaces the list with optimistic versioning). A run captures the list when
 * it starts, so a change applies to the next message. A stale version reloads the list and says so.
 */
export function ConversationContext(props: { conversationId: string; disabled?: boolean }) {
  const path = `/api/v1/agent/conversations/${encodeURIComponent(props.conversationId)}/context-references`;
  const [view, setView] = useState<ContextReferences | undefined>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();

  const load = useCallback(async () => {
    try {
      setView(await requestData<ContextReferences>('GET', path));
    } catch (e) {
      setError(errorMessage(e));
    }
  }, [path]);
  useEffect(() => {
    void load();
  }, [load]);

  const save = async (references: PickedReference[]) => {
    if (!view || busy) return;
    setBusy(true);
    setError(undefined);
    try {
      const body = { expectedVersion: view.version, references: references.map((r) => ({ targetType: 'conversation', targetId: r.conversationId })) };
      setView(await requestData<ContextReferences>('PUT', path, { body }));
    } catch (e) {
      setError(e instanceof ApiError && e.code === 'version_conflict' ? 'The context was changed elsewhere meanwhile: here is the latest. Make your change again.' : errorMessage(e));
      if (e instanceof ApiError && e.code === 'version_conflict') await load();
    } finally {
      setBusy(false);
    }
  };

  const selected: PickedReference[] = (view?.references ?? []).map((r) => ({ conversationId: r.targetId, title: r.title ?? null }));
  return (
    <div className="agent-conversation-context">
      <ContextReferencePicker
        selected={selected}
        excludeId={props.conversationId}
        disabled={busy || !view || props.disabled}
        onAdd={(r) => void save([...selected, r])}
        onRemove={(id) => void save(selected.filter((r) => r.conversationId !== id))}
      />
      {error ? (
        <p className="field-error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}
