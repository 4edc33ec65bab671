import { useEffect, useRef, useState } from 'react';
import type { AgentEvent } from './agent-types.ts';

/** Every event type the gateway sends today; unknown ones are ignored, as the API asks of clients. */
const EVENT_TYPES = [
  'run.created',
  'run.status_changed',
  'run.step.started',
  'run.step.completed',
  'message.created',
  'message.delta',
  'message.completed',
  'artifact.created',
  'decision.required',
  'question.asked',
  'budget.updated',
  'conversation.updated',
  'run.completed',
  'run.failed',
  'run.cancelled',
];

export type StreamState = 'connecting' | 'live' | 'reconnecting' | 'closed';

/**
 * Follows a conversation's event stream (GET …/events) with the browser's EventSource, which
 * reconnects by itself and sends Last-Event-ID, so the gateway resumes strictly after the last event
 * seen. `resync` (the cursor is older than the events kept) and `closed` (the conversation was deleted)
 * are passed on as events of those types.
 */
export function useConversationEvents(conversationId: string, onEvent: (event: AgentEvent) => void): StreamState {
  const [state, setState] = useState<StreamState>('connecting');
  const handler = useRef(onEvent);
  handler.current = onEvent;

  useEffect(() => {
    setState('connecting');
    const source = new EventSource(`/api/v1/agent/conversations/${encodeURIComponent(conversationId)}/events`);
    const deliver = (message: MessageEvent<string>) => {
      try {
        handler.current(JSON.parse(message.data) as AgentEvent);
      } catch {
        // A frame that is not an event (a future format) is skipped rather than ending the stream.
      }
    };
    for (const type of EVENT_TYPES) source.addEventListener(type, deliver);
    const control = (type: 'resync' | 'closed') => () => {
      handler.current({ id: '', sequence: 0, type, conversationId, runId: null, createdAt: new Date().toISOString(), data: {} });
      if (type === 'closed') {
        source.close();
        setState('closed');
      }
    };
    source.addEventListener('resync', control('resync'));
    source.addEventListener('closed', control('closed'));
    source.onopen = () => setState('live');
    source.onerror = () => setState(source.readyState === EventSource.CLOSED ? 'closed' : 'reconnecting');
    return () => source.close();
  }, [conversationId]);

  return state;
}
