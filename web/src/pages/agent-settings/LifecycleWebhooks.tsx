import { type FormEvent, useState } from 'react';
import { errorMessage, requestData } from '../../api/client.ts';
import type { AgentWebhook, NewAgentWebhook, QueuedAgentWebhookDelivery } from '../../api/index.ts';
import { CopyButton, describedBy, ErrorNotice, Field, Loading, useAsync } from '../../components/common.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { formatTime } from '../../format.ts';
import { WebhookDeliveries } from './WebhookDeliveries.tsx';

/** The lifecycle events a destination can ask for; "*" is every one of them. */
const EVENT_CHOICES = [
  { value: '*', label: 'Every event' },
  { value: 'run.status_changed', label: 'Run status changed' },
  { value: 'artifact.created', label: 'Artifact created' },
  { value: 'decision.required', label: 'Decision required' },
  { value: 'message.completed', label: 'Message completed' },
] as const;

/**
 * Agent lifecycle webhook destinations: add one (its secret shown once), list them, send one a test
 * event, read its recent deliveries (redeliver from there), revoke one.
 */
export function LifecycleWebhooks() {
  const [tick, setTick] = useState(0);
  const list = useAsync((signal) => requestData<AgentWebhook[]>('GET', '/api/v1/agent/webhooks', { signal }), [tick]);
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>(['*']);
  const [created, setCreated] = useState<NewAgentWebhook | undefined>();
  const [formError, setFormError] = useState<string | undefined>();
  const [confirming, setConfirming] = useState<string | undefined>();
  const [rowError, setRowError] = useState<string | undefined>();
  const [rowNotice, setRowNotice] = useState<string | undefined>();
  const [openDeliveries, setOpenDeliveries] = useState<string | undefined>();
  const [sent, setSent] = useState(0);

  const create = async (event: FormEvent) => {
    event.preventDefault();
    setFormError(undefined);
    // Only the shape is checked here: whether plain http is allowed is the operator's setting, so the
    // scheme, port and host are left to the server, whose refusal shows beside the field.
    if (!URL.canParse(url.trim())) {
      setFormError('Enter a full address, like https://example.com/agent-events');
      return;
    }
    if (events.length === 0) {
      setFormError('Choose at least one event');
      return;
    }
    try {
      setCreated(await requestData<NewAgentWebhook>('POST', '/api/v1/agent/webhooks', { body: { url: url.trim(), eventTypes: events } }));
      setUrl('');
      setTick((t) => t + 1);
    } catch (e) {
      setFormError(errorMessage(e));
    }
  };
  const revoke = async (webhookId: string) => {
    setRowError(undefined);
    try {
      await requestData('DELETE', `/api/v1/agent/webhooks/${encodeURIComponent(webhookId)}`);
      setConfirming(undefined);
      setTick((t) => t + 1);
    } catch (e) {
      setRowError(errorMessage(e));
    }
  };
  const sendTest = async (webhookId: string) => {
    setRowError(undefined);
    setRowNotice(undefined);
    try {
      await requestData<QueuedAgentWebhookDelivery>('POST', `/api/v1/agent/webhooks/${encodeURIComponent(webhookId)}/test`);
      setRowNotice('Test event queued. Its delivery shows below.');
      setOpenDeliveries(webhookId);
      setSent((n) => n + 1);
    } catch (e) {
      setRowError(errorMessage(e));
    }
  };
  const openHook = list.data?.find((hook) => hook.webhookId === openDeliveries);
  const toggle = (value: string, on: boolean) => setEvents((list) => (on ? [...list.filter((v) => v !== value), value] : list.filter((v) => v !== value)));

  return (
    <section className="panel" aria-labelledby="agent-webhooks-title">
      <h2 id="agent-webhooks-title">Lifecycle webhooks</h2>
      <p className="hint">Each destination receives the agent's events (runs, artifacts, decisions), signed per Standard Webhooks with its own secret.</p>
      <form className="agent-settings-form" onSubmit={create} noValidate aria-label="Add a destination">
        <Field id="agent-webhook-url" label="Destination URL" error={formError}>
          <input id="agent-webhook-url" type="url" value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://example.com/agent-events" aria-invalid={formError ? true : undefined} aria-describedby={describedBy('agent-webhook-url', undefined, formError)} />
        </Field>
        <fieldset className="field-group">
          <legend>Events</legend>
          {EVENT_CHOICES.map((choice) => (
            <label key={choice.value} className="agent-settings-choice">
              <input type="checkbox" checked={events.includes(choice.value)} onChange={(e) => toggle(choice.value, e.target.checked)} /> {choice.label}
            </label>
          ))}
        </fieldset>
        <div>
          <button type="submit" className="button button-primary">
            Add destination
          </button>
        </div>
      </form>
      {created?.secret ? (
        <div className="notice notice-success" role="status">
          <p>Destination added. Copy its signing secret now: it is not shown again.</p>
          <div className="copy-row">
            <label htmlFor="agent-webhook-secret" className="visually-hidden">
              Signing secret
            </label>
            <input id="agent-webhook-secret" className="mono" readOnly value={created.secret} data-testid="agent-webhook-secret" />
            <CopyButton text={created.secret} targetId="agent-webhook-secret" label="Copy secret" />
          </div>
        </div>
      ) : null}
      <ErrorNotice error={list.error} what="Destinations could not be loaded" />
      {list.loading && !list.data ? <Loading /> : null}
      {list.data?.length === 0 ? <p className="empty">No destinations yet.</p> : null}
      {list.data?.length ? (
        <DataTable label="Lifecycle webhook destinations" className="stack-on-phone" columns={[{ label: 'URL' }, { label: 'Events' }, { label: 'Status' }, { label: 'Added' }, { label: 'Actions', hidden: true }]}>
          {list.data.map((hook) => (
            <tr key={hook.webhookId}>
              <td className="mono agent-settings-url">{hook.url}</td>
              <td>{hook.eventTypes?.includes('*') ? 'Every event' : hook.eventTypes?.join(', ')}</td>
              <td>
                {hook.status}
                {hook.disabledReason ? <span className="small muted"> ({hook.disabledReason})</span> : null}
              </td>
              <td>{formatTime(hook.createdAt)}</td>
              <td>
                {confirming === hook.webhookId ? (
                  <fieldset className="confirm">
                    <legend>Revoke this destination? It stops receiving events.</legend>
                    <button type="button" className="button button-danger button-small" onClick={() => hook.webhookId && revoke(hook.webhookId)}>
                      Revoke now
                    </button>{' '}
                    <button type="button" className="button button-small" onClick={() => setConfirming(undefined)}>
                      Cancel
                    </button>
                  </fieldset>
                ) : (
                  <div className="webhook-row-actions">
                    {hook.status === 'active' ? (
                      <button type="button" className="button button-small" onClick={() => hook.webhookId && sendTest(hook.webhookId)}>
                        Send test event
                      </button>
                    ) : null}
                    <button
                      type="button"
                      className="button button-small"
                      aria-expanded={openDeliveries === hook.webhookId}
                      onClick={() => setOpenDeliveries((open) => (open === hook.webhookId ? undefined : hook.webhookId))}
                    >
                      Recent deliveries
                    </button>
                    <button type="button" className="button button-small" onClick={() => setConfirming(hook.webhookId)}>
                      Revoke…
                    </button>
                  </div>
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      {rowError ? (
        <p className="field-error" role="alert">
          {rowError}
        </p>
      ) : null}
      {rowNotice ? (
        <p className="notice notice-success" role="status">
          {rowNotice}
        </p>
      ) : null}
      {openHook ? <WebhookDeliveries key={openHook.webhookId} webhook={openHook} refreshKey={sent} onClose={() => setOpenDeliveries(undefined)} /> : null}
    </section>
  );
}
