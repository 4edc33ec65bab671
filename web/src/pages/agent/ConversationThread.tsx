import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { requestData } from '../../api/client.ts';
import { ErrorNotice, Loading } from '../../components/common.tsx';
import { formatMicroUsd, formatUsd } from '../../format.ts';
import { navigate } from '../../router.tsx';
import { type AgentEvent, type Artifact, type Conversation, RUN_STATUS_LABELS, type RunResult, type RunView, TERMINAL_RUN_STATUSES, type ThreadMessage } from './agent-types.ts';
import { ArtifactMedia } from './ArtifactMedia.tsx';
import { ConversationActions } from './ConversationActions.tsx';
import { ConversationContext } from './ConversationContext.tsx';
import { ConversationSummary } from './ConversationSummary.tsx';
import { Composer } from './Composer.tsx';
import { PendingActionCard } from './PendingActionCard.tsx';
import { ReplyText } from './ReplyText.tsx';
import { WorkflowLauncher } from './WorkflowLauncher.tsx';
import { RunPanel } from './RunPanel.tsx';
import { useConversationEvents } from './useConversationEvents.ts';
import { plainMessage } from '../../api/error-words.ts';

const REFRESH_DELAY_MS = 120;

interface ThreadState {
  conversation: Conversation | undefined;
  messages: ThreadMessage[];
  results: Record<string, RunResult>;
  runs: Record<string, RunView>;
}

/**
 * A conversation: its messages and each run's answer with the files it made, live while a run works
 * (the event stream drives it: streamed text as it is written, artifacts as they arrive, questions and
 * decisions as buttons), the focused run's details and controls, and the composer.
 */
export function ConversationThread(props: { conversationId: string; onChanged: () => void }) {
  const { conversationId } = props;
  const base = `/api/v1/agent/conversations/${encodeURIComponent(conversationId)}`;
  const [state, setState] = useState<ThreadState>({ conversation: undefined, messages: [], results: {}, runs: {} });
  const [loadError, setLoadError] = useState<unknown>();
  const [streaming, setStreaming] = useState<Record<string, string>>({});
  const [focusedRunId, setFocusedRunId] = useState<string | undefined>();
  const [announcement, setAnnouncement] = useState('');
  const touched = useRef(new Set<string>());
  const timer = useRef<number | undefined>(undefined);
  const stateRef = useRef(state);
  stateRef.current = state;
  const transcriptRef = useRef<HTMLOListElement>(null);

  /** Reloads the conversation and messages, and the runs that changed (or all, the first time). */
  const refresh = useCallback(
    async (all = false) => {
      try {
        const [conversation, page] = await Promise.all([
          requestData<Conversation>('GET', base),
          requestData<{ items: ThreadMessage[] }>('GET', `${base}/messages?limit=200`),
        ]);
        const runIds = [...new Set(page.items.map((m) => m.runId).filter((id): id is string => id !== null))];
        const known = stateRef.current;
        const wanted = runIds.filter((id) => all || touched.current.has(id) || !known.results[id] || !TERMINAL_RUN_STATUSES.has(known.results[id]?.status ?? ''));
        touched.current.clear();
        const fetched = await Promise.all(
          wanted.map(async (id) => {
            const [result, run] = await Promise.all([
              requestData<RunResult>('GET', `/api/v1/agent/runs/${encodeURIComponent(id)}/result`),
              requestData<RunView>('GET', `/api/v1/agent/runs/${encodeURIComponent(id)}`),
            ]);
            return { id, result, run };
          }),
        );
        setState((s) => {
          const results = { ...s.results };
          const runs = { ...s.runs };
          for (const f of fetched) {
            results[f.id] = f.result;
            runs[f.id] = f.run;
          }
          return { conversation, messages: page.items, results, runs };
        });
        setLoadError(undefined);
      } catch (e) {
        setLoadError(e);
      }
    },
    [base],
  );

  const scheduleRefresh = useCallback(() => {
    if (timer.current !== undefined) return;
    timer.current = window.setTimeout(() => {
      timer.current = undefined;
      void refresh();
    }, REFRESH_DELAY_MS);
  }, [refresh]);

  useEffect(() => {
    setState({ conversation: undefined, messages: [], results: {}, runs: {} });
    setStreaming({});
    setFocusedRunId(undefined);
    void refresh(true);
    return () => window.clearTimeout(timer.current);
  }, [refresh]);

  const onEvent = useCallback(
    (event: AgentEvent) => {
      if (event.type === 'closed') {
        navigate('/agent', { replace: true });
        props.onChanged();
        return;
      }
      if (event.type === 'resync') {
        void refresh(true);
        return;
      }
      const runId = event.runId;
      if (event.type === 'message.delta' && runId) {
        const text = typeof event.data.text === 'string' ? event.data.text : '';
        setStreaming((s) => ({ ...s, [runId]: (s[runId] ?? '') + text }));
        return;
      }
      if (runId) touched.current.add(runId);
      if (event.type === 'message.completed' && runId) {
        setStreaming((s) => {
          const { [runId]: _done, ...rest } = s;
          return rest;
        });
      }
      if (event.type === 'question.asked') setAnnouncement('The agent asked a question.');
      if (event.type === 'decision.required') setAnnouncement('The agent needs your decision.');
      if (event.type === 'run.completed') setAnnouncement('The run completed.');
      if (event.type === 'run.failed') setAnnouncement('The run failed.');
      if (event.type === 'conversation.updated' || event.type === 'run.completed') props.onChanged();
      scheduleRefresh();
    },
    [refresh, scheduleRefresh, props.onChanged],
  );
  const streamState = useConversationEvents(conversationId, onEvent);

  const { conversation, messages, results, runs } = state;
  const activeRunId = conversation?.activeRunId ?? undefined;
  const latestRunId = [...messages].reverse().find((m) => m.runId)?.runId ?? undefined;
  const panelRun = runs[focusedRunId ?? activeRunId ?? latestRunId ?? ''];
  const activeRun = activeRunId ? runs[activeRunId] : undefined;

  // biome-ignore lint/correctness/useExhaustiveDependencies: scroll whenever the thread grows.
  useEffect(() => {
    const list = transcriptRef.current;
    if (list) list.scrollTop = list.scrollHeight;
  }, [messages.length, streaming]);

  const items = useMemo(() => threadItems(messages, results, runs), [messages, results, runs]);

  const sent = (runId: string | undefined) => {
    if (runId) touched.current.add(runId);
    setFocusedRunId(undefined);
    void refresh();
    props.onChanged();
  };
  const runChanged = (runId: string) => {
    touched.current.add(runId);
    void refresh();
  };

  if (!conversation && !loadError) return <Loading label="Loading the conversation…" />;
  return (
    <div className="agent-thread">
      <div className="agent-thread-header">
        <h2 data-testid="conversation-title">{conversation?.title ?? 'New conversation'}</h2>
        <span className="small muted" data-testid="stream-state">
          {streamState === 'live' ? 'Live' : streamState === 'closed' ? 'Closed' : 'Connecting…'}
        </span>
        <ConversationActions
          conversation={conversation}
          base={base}
          onChanged={() => {
            props.onChanged();
            void refresh();
          }}
          onError={setLoadError}
        />
      </div>
      {conversation ? <ConversationSummary conversation={conversation} /> : null}
      {conversation ? <ConversationContext conversationId={conversationId} /> : null}
      <ErrorNotice error={loadError} what="The conversation could not be loaded" />
      <ol className="transcript agent-transcript" ref={transcriptRef} aria-label="Thread" data-testid="agent-thread">
        {items.length === 0 ? <li className="muted">Describe what to make: “a 5 second video of waves, then music for it”.</li> : null}
        {items.map((item) =>
          item.kind === 'user' ? (
            <li key={item.message.messageId} className="message message-user">
              <span className="message-role">You</span>
              <div className="message-content">{item.message.text}</div>
              {attachmentCount(item.message) ? <span className="small muted">{attachmentCount(item.message)} file(s) attached</span> : null}
            </li>
          ) : (
            <li key={`run-${item.runId}`} className="message message-assistant" data-testid="agent-answer" data-run-id={item.runId}>
              <span className="message-role">
                Agent · run {item.run?.runNumber ?? ''}{' '}
                <span className={`badge badge-run-${item.status}`}>{RUN_STATUS_LABELS[item.status] ?? item.status}</span>
                {item.run ? (
                  <span className="muted" title={formatMicroUsd(item.run.budget.settledMicroUsd)}>
                    {' '}
                    · {formatUsd(item.run.budget.settledMicroUsd)}
                  </span>
                ) : null}{' '}
                <button type="button" className="button button-small" onClick={() => setFocusedRunId(item.runId)} aria-pressed={panelRun?.runId === item.runId}>
                  Details
                </button>
              </span>
              <div className="message-content" data-testid="agent-answer-text">
                {item.text !== undefined ? (
                  <ReplyText text={item.text} artifacts={item.artifacts} labels={artifactLabels(item.artifacts)} />
                ) : (
                  (streaming[item.runId] ?? (TERMINAL_RUN_STATUSES.has(item.status) ? '' : '…'))
                )}
              </div>
              {item.error ? <p className="small">{item.error}</p> : null}
              {item.structured !== undefined ? (
                <figure className="agent-structured-result">
                  <figcaption className="small muted">Structured result</figcaption>
                  <pre className="agent-structured" data-testid="structured-result">
                    {JSON.stringify(item.structured, null, 2)}
                  </pre>
                </figure>
              ) : null}
              {item.extractionError ? <p className="small" data-testid="structured-error">No structured result: {item.extractionError}</p> : null}
              {item.artifacts.length ? (
                <div className="agent-artifacts">
                  {item.artifacts.map((a, i) => (
                    <ArtifactMedia key={a.artifactId} artifact={a} name={artifactLabels(item.artifacts).get(a.artifactId) ?? a.type} label={`Run ${item.run?.runNumber ?? ''}, ${a.type} ${i + 1}`} />
                  ))}
                </div>
              ) : null}
              {item.run?.pendingActions.map((action) => (
                <PendingActionCard key={action.pendingActionId} runId={item.runId} conversationId={conversationId} action={action} onDone={scheduleRefresh} />
              ))}
            </li>
          ),
        )}
      </ol>
      <p className="visually-hidden" role="status" aria-live="polite">
        {announcement}
      </p>
      <Composer conversationId={conversationId} activeRun={activeRun} onSent={sent} />
      <WorkflowLauncher conversationId={conversationId} disabled={activeRun !== undefined && !TERMINAL_RUN_STATUSES.has(activeRun.status)} onStarted={sent} />
      {panelRun ? <RunPanel run={panelRun} onChanged={() => runChanged(panelRun.runId)} /> : null}
    </div>
  );
}

type ThreadItem =
  | { kind: 'user'; message: ThreadMessage }
  | {
      kind: 'run';
      runId: string;
      status: string;
      text: string | undefined;
      artifacts: Artifact[];
      run: RunView | undefined;
      error: string | undefined;
      structured: unknown;
      extractionError: string | undefined;
    };

/** User messages in order; each run's answer follows the last message of that run (its request, steering, replies). */
function threadItems(messages: ThreadMessage[], results: Record<string, RunResult>, runs: Record<string, RunView>): ThreadItem[] {
  const items: ThreadItem[] = [];
  const answers = new Map(messages.filter((m) => m.role === 'assistant' && m.runId).map((m) => [m.runId, m]));
  const lastOfRun = new Map<string, string>();
  for (const m of messages) if (m.role === 'user' && m.runId) lastOfRun.set(m.runId, m.messageId);
  for (const message of messages) {
    if (message.role === 'assistant') continue;
    items.push({ kind: 'user', message });
    const runId = message.runId;
    if (!runId || lastOfRun.get(runId) !== message.messageId) continue;
    const result = results[runId];
    const run = runs[runId];
    items.push({
      kind: 'run',
      runId,
      status: run?.status ?? result?.status ?? 'queued',
      text: answers.get(runId)?.text ?? result?.mainOutcome?.text,
      artifacts: result?.artifacts ?? [],
      run,
      error: result?.error ? plainMessage(result.error.message ?? '') || 'The run failed.' : undefined,
      structured: result?.structuredResult === null ? undefined : result?.structuredResult,
      extractionError: result?.extraction?.status === 'failed' ? (result.extraction.error ?? 'extraction failed') : undefined,
    });
  }
  return items;
}

/** What a run's files are called in its reply and captions: their kind and place ("image 1", "video 1"). */
function artifactLabels(artifacts: Artifact[]): Map<string, string> {
  const counts = new Map<string, number>();
  return new Map(
    artifacts.map((a) => {
      const kind = a.contentType.split('/')[0] || a.type;
      const n = (counts.get(kind) ?? 0) + 1;
      counts.set(kind, n);
      return [a.artifactId, `${kind} ${n}`];
    }),
  );
}

function attachmentCount(message: ThreadMessage): number {
  return (message.content ?? []).filter((block) => block.type === 'attachment').length;
}
