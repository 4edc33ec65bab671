import { type FormEvent, type KeyboardEvent, useEffect, useMemo, useRef, useState } from 'react';
import { errorFromResponse, errorMessage, request, requestData, requestHeaders } from '../api/client.ts';
import type { CatalogModel } from '../api/index.ts';
import { ErrorNotice, Loading, Page, useAsync } from '../components/common.tsx';
import { formatCount, formatMicroUsd } from '../format.ts';

interface Message {
  role: 'system' | 'user' | 'assistant';
  content: string;
  /** An assistant reply: what it cost (micro-USD, from the ledger), once settled. */
  costMicroUsd?: string;
  /** An assistant reply: the chat request id (the stream's `id`). */
  requestId?: string;
}

/** The conversation and settings kept across reloads (this browser only). */
const STORAGE_KEY = 'switchboard.chat.v1';

interface SavedChat {
  modelId: string;
  system: string;
  messages: Message[];
  maxTokens: string;
  temperature: string;
}

function loadSaved(): Partial<SavedChat> {
  try {
    const raw = window.localStorage.getItem(STORAGE_KEY);
    return raw ? (JSON.parse(raw) as Partial<SavedChat>) : {};
  } catch {
    return {};
  }
}

/** The cheapest text model by input price: a sensible default that does not surprise the balance. */
export function cheapestModel(models: CatalogModel[]): CatalogModel | undefined {
  let best: CatalogModel | undefined;
  for (const m of models) {
    const price = Number(m.priceFrom ?? Number.POSITIVE_INFINITY);
    if (!best || price < Number(best.priceFrom ?? Number.POSITIVE_INFINITY)) best = m;
  }
  return best;
}

/** What a chat request was charged: its `chat_charge` ledger entry, written when it settles (shortly after the reply). */
async function settledCost(requestId: string): Promise<string | undefined> {
  for (let attempt = 0; attempt < 12; attempt++) {
    const page = await requestData<{ items: Array<{ amountMicroUsd: string; link: { type: string; id: string | null } }> }>('GET', '/api/v1/billing/ledger?kind=chat_charge&limit=20');
    const entry = page.items.find((e) => e.link.type === 'chat_request' && e.link.id === requestId);
    if (entry) return String(-Number(entry.amountMicroUsd));
    await new Promise((r) => setTimeout(r, 250));
  }
  return undefined;
}

interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/**
 * Reads an OpenAI-style server-sent event stream from a fetch body: `data: {json}` frames, ended by
 * `data: [DONE]`; calls `onDelta` with each piece of content.
 */
export async function readChatStream(body: ReadableStream<Uint8Array>, onDelta: (text: string) => void, onUsage: (usage: Usage) => void, onId: (id: string) => void = () => {}): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let end = buffer.search(/\r?\n\r?\n/);
    while (end >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, '');
      const data = frame
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      if (data === '[DONE]') return;
      if (data) {
        const chunk = JSON.parse(data) as { id?: string; choices?: Array<{ delta?: { content?: string | null } }>; usage?: Usage | null; error?: { message?: string } };
        if (chunk.error) throw new Error(chunk.error.message ?? 'the stream ended with an error');
        if (chunk.id) onId(chunk.id);
        const text = chunk.choices?.[0]?.delta?.content;
        if (text) onDelta(text);
        if (chunk.usage) onUsage(chunk.usage);
      }
      end = buffer.search(/\r?\n\r?\n/);
    }
  }
  throw new Error('the stream was cut before it finished');
}

/** A chat with any text model, streamed as it is written (POST /api/v1/chat/completions, stream: true). */
export function ChatPage() {
  const catalog = useAsync((signal) => request<CatalogModel[]>('GET', '/api/v1/catalog', { signal }), []);
  const models = useMemo(() => (catalog.data ?? []).filter((m) => m.kind === 'llm'), [catalog.data]);
  const [saved] = useState(loadSaved);
  const [modelId, setModelId] = useState(saved.modelId ?? '');
  const [system, setSystem] = useState(saved.system ?? '');
  const [messages, setMessages] = useState<Message[]>(saved.messages ?? []);
  const [maxTokens, setMaxTokens] = useState(saved.maxTokens ?? '');
  const [temperature, setTemperature] = useState(saved.temperature ?? '');
  const [draft, setDraft] = useState('');
  const [streaming, setStreaming] = useState(false);
  const [error, setError] = useState<unknown>();
  const [usage, setUsage] = useState<Usage | undefined>();
  const [announcement, setAnnouncement] = useState('');
  const abortRef = useRef<AbortController | undefined>(undefined);
  const transcriptRef = useRef<HTMLOListElement>(null);

  useEffect(() => {
    if (models.length === 0) return;
    if (!modelId || !models.some((m) => m.id === modelId)) setModelId(cheapestModel(models)?.id ?? '');
  }, [models, modelId]);

  useEffect(() => {
    if (streaming) return;
    try {
      const chat: SavedChat = { modelId, system, messages, maxTokens, temperature };
      window.localStorage.setItem(STORAGE_KEY, JSON.stringify(chat));
    } catch {
      // Storage full or disabled: the chat still works, it just does not survive a reload.
    }
  }, [modelId, system, messages, maxTokens, temperature, streaming]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: scroll whenever the transcript grows.
  useEffect(() => {
    const list = transcriptRef.current;
    if (list) list.scrollTop = list.scrollHeight;
  }, [messages]);

  const send = async (event?: FormEvent) => {
    event?.preventDefault();
    const text = draft.trim();
    if (!text || streaming || !modelId) return;
    const history: Message[] = [...messages, { role: 'user', content: text }];
    setMessages([...history, { role: 'assistant', content: '' }]);
    let requestId: string | undefined;
    let received = '';
    setDraft('');
    setError(undefined);
    setUsage(undefined);
    setStreaming(true);
    setAnnouncement('Waiting for the reply…');
    const controller = new AbortController();
    abortRef.current = controller;
    try {
      const response = await fetch('/api/v1/chat/completions', {
        method: 'POST',
        credentials: 'same-origin',
        headers: requestHeaders('POST', { 'content-type': 'application/json', accept: 'text/event-stream' }),
        body: JSON.stringify({
          model: modelId,
          // Only role and content go to the model: never an empty reply (a failed one is removed).
          messages: [...(system.trim() ? [{ role: 'system', content: system.trim() }] : []), ...history.filter((m) => m.content !== '').map((m) => ({ role: m.role, content: m.content }))],
          stream: true,
          stream_options: { include_usage: true },
          ...(maxTokens.trim() ? { max_tokens: Number(maxTokens) } : {}),
          ...(temperature.trim() ? { temperature: Number(temperature) } : {}),
        }),
        signal: controller.signal,
      });
      if (!response.ok || !response.body) throw await errorFromResponse(response);
      await readChatStream(
        response.body,
        (delta) => {
          received += delta;
          setMessages((all) => {
            const copy = all.slice();
            const last = copy.at(-1);
            if (last) copy[copy.length - 1] = { ...last, content: last.content + delta };
            return copy;
          });
        },
        setUsage,
        (id) => {
          requestId = id;
        },
      );
      setAnnouncement('Reply complete.');
      const id = requestId;
      if (id) {
        setMessages((all) => all.map((m, i) => (i === all.length - 1 && m.role === 'assistant' ? { ...m, requestId: id } : m)));
        void settledCost(id).then(
          (cost) => setMessages((all) => all.map((m) => (m.requestId === id && cost !== undefined ? { ...m, costMicroUsd: cost } : m))),
          () => {},
        );
      }
    } catch (e) {
      if (received === '') {
        // Nothing arrived: the exchange did not happen. Take it out of the history and give the text back.
        setMessages(messages);
        setDraft(text);
      }
      if (e instanceof DOMException && e.name === 'AbortError') {
        setAnnouncement('Stopped.');
      } else {
        setError(e);
        setAnnouncement(`The reply failed: ${errorMessage(e)}`);
      }
    } finally {
      setStreaming(false);
      abortRef.current = undefined;
    }
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void send();
    }
  };

  return (
    <Page
      title="Chat playground"
      lead="Talk to any text model. Replies stream in as they are written and are billed by tokens, as for API calls."
      actions={
        <button
          type="button"
          className="button"
          onClick={() => {
            setMessages([]);
            setUsage(undefined);
            setError(undefined);
          }}
          disabled={streaming || messages.length === 0}
        >
          New conversation
        </button>
      }
    >
      <ErrorNotice error={catalog.error} what="The catalog could not be loaded" />
      {catalog.loading && !catalog.data ? <Loading label="Loading models…" /> : null}
      <div className="chat">
        <div className="chat-settings">
          <div className="field">
            <label htmlFor="chat-model">Model</label>
            <select id="chat-model" value={modelId} onChange={(e) => setModelId(e.target.value)}>
              {models.map((m) => (
                <option key={m.id} value={m.id}>
                  {m.name}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="chat-max-tokens">Max tokens</label>
            <input id="chat-max-tokens" type="number" min={1} max={200000} step={1} inputMode="numeric" placeholder="model default" value={maxTokens} onChange={(e) => setMaxTokens(e.target.value)} />
          </div>
          <div className="field">
            <label htmlFor="chat-temperature">Temperature</label>
            <input id="chat-temperature" type="number" min={0} max={2} step={0.1} inputMode="decimal" placeholder="model default" value={temperature} onChange={(e) => setTemperature(e.target.value)} />
          </div>
          <div className="field">
            <label htmlFor="chat-system">System prompt (optional)</label>
            <textarea id="chat-system" rows={2} value={system} onChange={(e) => setSystem(e.target.value)} />
          </div>
        </div>
        <ol className="transcript" ref={transcriptRef} aria-label="Conversation">
          {messages.length === 0 ? <li className="muted">No messages yet.</li> : null}
          {messages.map((m, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: messages are appended, never reordered.
            <li key={i} className={`message message-${m.role}`}>
              <span className="message-role">{m.role === 'user' ? 'You' : 'Assistant'}</span>
              <div className="message-content">{m.content || (streaming && i === messages.length - 1 ? '…' : '')}</div>
              {m.role === 'assistant' && m.costMicroUsd !== undefined ? (
                <span className="small muted" data-testid="reply-cost">
                  Cost {formatMicroUsd(m.costMicroUsd)}
                </span>
              ) : null}
            </li>
          ))}
        </ol>
        <p className="visually-hidden" role="status" aria-live="polite">
          {announcement}
        </p>
        {usage ? (
          <p className="small muted" data-testid="chat-usage">
            {formatCount(usage.prompt_tokens)} prompt + {formatCount(usage.completion_tokens)} completion tokens
          </p>
        ) : null}
        <ErrorNotice error={error} what="The reply failed" missingEndpoint="Chat is not available on this gateway yet." />
        <form className="chat-input" onSubmit={send}>
          <label htmlFor="chat-message">Message</label>
          <textarea id="chat-message" rows={3} value={draft} onChange={(e) => setDraft(e.target.value)} onKeyDown={onKeyDown} aria-describedby="chat-message-hint" />
          <p className="hint" id="chat-message-hint">
            Enter sends; Shift+Enter starts a new line.
          </p>
          <div className="chat-buttons">
            <button type="submit" className="button button-primary" disabled={streaming || !draft.trim()}>
              Send
            </button>
            {streaming ? (
              <button type="button" className="button" onClick={() => abortRef.current?.abort()}>
                Stop
              </button>
            ) : null}
          </div>
        </form>
      </div>
    </Page>
  );
}
