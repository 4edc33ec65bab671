import { type DragEvent, type FormEvent, type KeyboardEvent, useRef, useState } from 'react';
import { ApiError, errorMessage, requestData } from '../../api/client.ts';
import type { MessageAccepted } from '../../api/index.ts';
import { RUN_STATUS_LABELS, type RunView, TERMINAL_RUN_STATUSES } from './agent-types.ts';
import { usdToMicroString } from '../../format.ts';
import { type EmptyBalance, EmptyBalanceNotice, emptyBalance } from './EmptyBalance.tsx';
import { MaskPainter } from './MaskPainter.tsx';
import { isSchemaRefusal, StructuredOutputSection, useStructuredOutput } from './StructuredOutputSection.tsx';
import { typeOf, USAGE_INTENT_LABELS, USAGE_INTENTS, useUploads } from './useUploads.ts';

const MAX_FILES = 10;

/**
 * The message box: text, files (picked or dropped, uploaded with progress and checked before the
 * message is sent; a mask painted on an image), an optional spending limit, and while a run works,
 * whether the message queues a follow-up or steers that run.
 */
export function Composer(props: { conversationId: string; activeRun: RunView | undefined; onSent: (runId: string | undefined) => void }) {
  const { activeRun } = props;
  const [draft, setDraft] = useState('');
  const [limit, setLimit] = useState('');
  const [mode, setMode] = useState<'followup' | 'steer'>('followup');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [empty, setEmpty] = useState<EmptyBalance>();
  const [dragging, setDragging] = useState(false);
  const [painting, setPainting] = useState<string | undefined>();
  const fileInput = useRef<HTMLInputElement>(null);
  const schemaInput = useRef<HTMLTextAreaElement>(null);
  const output = useStructuredOutput();
  const files = useUploads(props.conversationId);
  const busyRun = activeRun !== undefined && !TERMINAL_RUN_STATUSES.has(activeRun.status);
  const canSend = !busy && !files.busy && (draft.trim() !== '' || files.blocks.length > 0);
  // Steering joins the active run, whose result format was fixed when it started.
  const steering = busyRun && mode === 'steer' && activeRun?.canSteer === true;

  const addFiles = (list: FileList | null) => {
    if (!list) return;
    const room = MAX_FILES - files.uploads.length;
    if (list.length > room) setError(new Error(`A message takes at most ${MAX_FILES} files (masks count).`));
    for (const file of Array.from(list).slice(0, Math.max(0, room))) void files.add(file, file.name, typeOf(file));
  };

  const send = async (event?: FormEvent) => {
    event?.preventDefault();
    const text = draft.trim();
    if (!canSend) return;
    const micro = limit.trim() === '' ? undefined : usdToMicroString(limit);
    if (limit.trim() !== '' && !micro) {
      setError(new Error('Enter the spending limit in USD, for example 1.50, or leave it empty for your default.'));
      return;
    }
    // A schema that is not valid JSON (or too long) is refused here: its error is already in place.
    if (!steering && output.check.kind === 'invalid') {
      schemaInput.current?.focus();
      return;
    }
    setBusy(true);
    setError(undefined);
    setEmpty(undefined);
    try {
      // A new run or a follow-up from an empty balance is refused before it is sent (steering joins a run already paid for).
      const broke = steering ? undefined : await emptyBalance();
      if (broke) {
        setEmpty(broke);
        return;
      }
      const content = [...(text ? [{ type: 'text', text }] : []), ...files.blocks];
      const body: Record<string, unknown> = { clientMessageId: crypto.randomUUID(), content };
      if (micro) body.maxCostMicroUsd = micro;
      if (!steering) Object.assign(body, output.fields());
      if (busyRun) body.deliveryMode = mode === 'steer' && activeRun?.canSteer ? 'steer' : 'followup';
      const accepted = await requestData<MessageAccepted>('POST', `/api/v1/agent/conversations/${encodeURIComponent(props.conversationId)}/messages`, { body });
      setDraft('');
      files.clear();
      props.onSent(accepted.runId);
    } catch (e) {
      if (isSchemaRefusal(e)) {
        output.setRefusal(errorMessage(e));
        schemaInput.current?.focus();
      } else if (e instanceof ApiError && e.code === 'insufficient_balance') {
        const broke = await emptyBalance();
        if (broke) setEmpty(broke);
        else setError(e);
      } else setError(e);
    } finally {
      setBusy(false);
    }
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void send();
    }
  };
  const onDrop = (event: DragEvent<HTMLFormElement>) => {
    event.preventDefault();
    setDragging(false);
    addFiles(event.dataTransfer.files);
  };
  const paintingUpload = files.uploads.find((u) => u.key === painting);

  return (
    <form
      className={`chat-input agent-composer${dragging ? ' agent-composer-dragging' : ''}`}
      onSubmit={send}
      onDragOver={(event) => {
        event.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={onDrop}
      data-testid="agent-composer"
    >
      <label htmlFor="agent-message">Message</label>
      <textarea id="agent-message" rows={3} value={draft} onChange={(e) => setDraft(e.target.value)} onKeyDown={onKeyDown} aria-describedby="agent-message-hint" />
      <p className="hint" id="agent-message-hint">
        Enter sends; Shift+Enter starts a new line. Drop files here or attach them (at most {MAX_FILES}, 25 MiB each).{' '}
        {busyRun ? `Run ${activeRun?.runNumber} is ${RUN_STATUS_LABELS[activeRun?.status ?? '']?.toLowerCase() ?? activeRun?.status}.` : ''}
      </p>
      {files.uploads.length ? (
        <ul className="plain-list agent-uploads" aria-label="Files of this message">
          {files.uploads.map((u) => (
            <li key={u.key} className="agent-upload-row" data-testid="agent-upload" data-status={u.status}>
              <span>
                {/* A mask is named after the photo it was painted on, not after its own file. */}
                {u.maskFor ? `Mask for ${files.uploads.find((o) => o.key === u.maskFor)?.name ?? u.name}` : u.name}
              </span>{' '}
              {u.status === 'uploading' ? <progress max={1} value={u.progress} aria-label={`Uploading ${u.name}`} /> : null}
              {u.status === 'ready' ? <span className="small muted">ready</span> : null}
              {u.status === 'failed' ? <span className="small">failed: {u.error}</span> : null}{' '}
              {u.maskFor ? null : (
                <select
                  className="agent-upload-intent"
                  aria-label={`How to use ${u.name}`}
                  value={u.usageIntent}
                  onChange={(e) => files.setIntent(u.key, USAGE_INTENTS.find((intent) => intent === e.target.value) ?? 'auto')}
                >
                  {USAGE_INTENTS.map((intent) => (
                    <option key={intent} value={intent}>
                      {USAGE_INTENT_LABELS[intent]}
                    </option>
                  ))}
                </select>
              )}{' '}
              {u.status === 'ready' && u.previewUrl && !u.maskFor && !files.uploads.some((m) => m.maskFor === u.key) ? (
                <button type="button" className="button button-small" onClick={() => setPainting(u.key)}>
                  Paint mask
                </button>
              ) : null}{' '}
              <button type="button" className="button button-small" onClick={() => files.remove(u.key)} aria-label={`Remove ${u.name}`}>
                Remove
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      {paintingUpload?.previewUrl ? (
        <MaskPainter
          imageUrl={paintingUpload.previewUrl}
          name={paintingUpload.name}
          onCancel={() => setPainting(undefined)}
          onDone={(mask) => {
            setPainting(undefined);
            void files.add(mask, `mask-${paintingUpload.name.replace(/\.[^.]+$/, '')}.png`, 'image/png', paintingUpload.key);
          }}
        />
      ) : null}
      {steering ? null : <StructuredOutputSection output={output} idPrefix="composer" textareaRef={schemaInput} />}
      <div className="agent-composer-options">
        <input ref={fileInput} type="file" multiple hidden aria-label="Files to attach" onChange={(e) => {
          addFiles(e.target.files);
          e.target.value = '';
        }} />
        <button type="button" className="button" onClick={() => fileInput.current?.click()}>
          Attach files
        </button>
        <div className="field field-inline">
          <label htmlFor="agent-limit">Spending limit (USD)</label>
          <input id="agent-limit" inputMode="decimal" placeholder="default" value={limit} onChange={(e) => setLimit(e.target.value)} />
        </div>
        {busyRun ? (
          <fieldset className="segmented">
            <legend className="visually-hidden">While a run is active</legend>
            <label className="field-checkbox">
              <input type="radio" name="delivery" checked={mode === 'followup'} onChange={() => setMode('followup')} /> Queue as follow-up
            </label>
            <label className="field-checkbox">
              <input type="radio" name="delivery" checked={mode === 'steer'} disabled={!activeRun?.canSteer} onChange={() => setMode('steer')} /> Steer the current run
            </label>
          </fieldset>
        ) : null}
        <button type="submit" className="button button-primary" disabled={!canSend}>
          {busyRun ? (steering ? 'Steer' : 'Queue') : 'Send'}
        </button>
      </div>
      {empty ? (
        <EmptyBalanceNotice money={empty} />
      ) : error ? (
        <div className="notice notice-error" role="alert">
          <strong>The message was not sent: </strong>
          {errorMessage(error)}
        </div>
      ) : null}
    </form>
  );
}
