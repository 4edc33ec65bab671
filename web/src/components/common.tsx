import { type DependencyList, type ReactNode, useCallback, useEffect, useRef, useState } from 'react';
import { ApiError, errorMessage } from '../api/client.ts';
import type { MediaFile, TaskStatus } from '../api/index.ts';
import { STATUS_LABELS } from '../format.ts';
import { usePageTitle } from '../router.tsx';

export interface AsyncState<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

/** Runs `load` when the dependencies change; the latest call wins. */
export function useAsync<T>(load: (signal: AbortSignal) => Promise<T>, deps: DependencyList): AsyncState<T> {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({ data: undefined, error: undefined, loading: true });
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  // biome-ignore lint/correctness/useExhaustiveDependencies: the caller's dependency list decides when to reload.
  useEffect(() => {
    const controller = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    loadRef.current(controller.signal).then(
      (data) => {
        if (!controller.signal.aborted) setState({ data, error: undefined, loading: false });
      },
      (error: unknown) => {
        if (!controller.signal.aborted) setState((s) => ({ data: s.data, error, loading: false }));
      },
    );
    return () => controller.abort();
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}

export function Page(props: { title: string; actions?: ReactNode; children: ReactNode; lead?: ReactNode }) {
  usePageTitle(props.title);
  return (
    <>
      <div className="page-header">
        <h1 id="page-title" tabIndex={-1}>
          {props.title}
        </h1>
        {props.actions ? <div className="page-actions">{props.actions}</div> : null}
      </div>
      {props.lead ? <p className="lead">{props.lead}</p> : null}
      {props.children}
    </>
  );
}

export function ErrorNotice(props: { error: unknown; what?: string; missingEndpoint?: string }) {
  const { error } = props;
  if (!error) return null;
  if (error instanceof ApiError && error.isMissingEndpoint) {
    return (
      <div className="notice notice-info" role="status">
        {props.missingEndpoint ?? 'This feature is not available on this gateway yet.'}
      </div>
    );
  }
  return (
    <div className="notice notice-error" role="alert">
      {props.what ? <strong>{props.what}: </strong> : null}
      {errorMessage(error)}
    </div>
  );
}

export function Loading(props: { label?: string }) {
  return (
    <p className="loading" role="status">
      {props.label ?? 'Loading…'}
    </p>
  );
}

export function StatusBadge(props: { status: TaskStatus | string }) {
  return <span className={`badge badge-${props.status}`}>{STATUS_LABELS[props.status] ?? props.status}</span>;
}

/** Copies text; falls back to selecting it when the Clipboard API is unavailable (plain HTTP). */
export function CopyButton(props: { text: string; label?: string; targetId?: string }) {
  const [copied, setCopied] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.text);
      setCopied('copied');
    } catch {
      const target = props.targetId ? document.getElementById(props.targetId) : null;
      if (target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement) {
        target.focus();
        target.select();
        setCopied(document.execCommand('copy') ? 'copied' : 'failed');
      } else {
        setCopied('failed');
      }
    }
    window.setTimeout(() => setCopied('idle'), 2500);
  };
  return (
    <>
      <button type="button" className="button" onClick={copy}>
        {props.label ?? 'Copy'}
      </button>
      <span className="copy-status" role="status" aria-live="polite">
        {copied === 'copied' ? 'Copied to the clipboard' : copied === 'failed' ? 'Press Ctrl+C (⌘C) to copy the selected text' : ''}
      </span>
    </>
  );
}

/** A generated file: the image, a video player or an audio player, and a download link. */
export function FilePreview(props: { file: MediaFile; label: string; large?: boolean }) {
  const { file } = props;
  return (
    <figure className={props.large ? 'preview preview-large' : 'preview'}>
      {file.fileType === 'image' ? (
        <img src={file.fileUrl} alt={props.label} loading="lazy" />
      ) : file.fileType === 'video' ? (
        // biome-ignore lint/a11y/useMediaCaption: generated videos come without captions.
        <video src={file.fileUrl} controls preload="metadata" aria-label={props.label} />
      ) : (
        // biome-ignore lint/a11y/useMediaCaption: generated music comes without captions.
        <audio src={file.fileUrl} controls preload="none" aria-label={props.label} />
      )}
      {props.large ? (
        <figcaption>
          <a href={file.fileUrl} download target="_blank" rel="noreferrer">
            Download {file.fileType === 'music' ? 'audio' : file.fileType}
          </a>
        </figcaption>
      ) : null}
    </figure>
  );
}

/** Wide tables scroll sideways on small screens inside a focusable, labelled region. */
export function TableScroll(props: { label: string; children: ReactNode }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard.
    <section className="table-scroll" aria-label={props.label} tabIndex={0}>
      {props.children}
    </section>
  );
}

export function Field(props: { id: string; label: string; hint?: string; error?: string; children: ReactNode; inline?: boolean }) {
  return (
    <div className={props.inline ? 'field field-inline' : 'field'}>
      <label htmlFor={props.id}>{props.label}</label>
      {props.children}
      <FieldNotes id={props.id} hint={props.hint} error={props.error} />
    </div>
  );
}

/** A control's hint and error, with the ids that describedBy points at. */
export function FieldNotes(props: { id: string; hint?: string | undefined; error?: string | undefined }) {
  return (
    <>
      {props.hint ? (
        <p className="hint" id={`${props.id}-hint`}>
          {props.hint}
        </p>
      ) : null}
      {props.error ? (
        <p className="field-error" id={`${props.id}-error`} role="alert">
          {props.error}
        </p>
      ) : null}
    </>
  );
}

/** aria-describedby for a Field's control. */
export function describedBy(id: string, hint?: string, error?: string): string | undefined {
  const ids = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean);
  return ids.length ? ids.join(' ') : undefined;
}
