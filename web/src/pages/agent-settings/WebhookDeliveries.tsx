import { useEffect, useState } from 'react';
import { errorMessage, requestData } from '../../api/client.ts';
import type { AgentWebhook, AgentWebhookDelivery, AgentWebhookDeliveryPage, QueuedAgentWebhookDelivery } from '../../api/index.ts';
import { ErrorNotice, Loading } from '../../components/common.tsx';
import { formatTime } from '../../format.ts';

const PAGE = 20;
/** While a delivery is pending the list is read again this often (only while the panel is open). */
const PENDING_REFRESH_MS = 2_000;

const STATUS_WORDS: Record<AgentWebhookDelivery['status'], string> = { pending: 'Pending', delivered: 'Delivered', failed: 'Failed' };
const STATUS_BADGE: Record<AgentWebhookDelivery['status'], string> = { pending: 'badge-processing', delivered: 'badge-finished', failed: 'badge-failed' };

function deliveriesPath(webhookId: string, query: string): string {
  return `/api/v1/agent/webhooks/${encodeURIComponent(webhookId)}/deliveries${query}`;
}

/**
 * One destination's recent deliveries, newest first: status, time, the receiver's HTTP status and
 * the error in words, with Redeliver (the same event id again). `refreshKey` changes when the page
 * sent something new (a test event).
 */
export function WebhookDeliveries(props: { webhook: AgentWebhook; refreshKey: number; onClose: () => void }) {
  const webhookId = props.webhook.webhookId ?? '';
  const [items, setItems] = useState<AgentWebhookDelivery[] | undefined>();
  const [nextCursor, setNextCursor] = useState<string | null>(null);
  const [error, setError] = useState<unknown>();
  const [reloads, setReloads] = useState(0);
  const [notice, setNotice] = useState<string | undefined>();
  const [actionError, setActionError] = useState<string | undefined>();
  const [busy, setBusy] = useState<string | undefined>();
  const shown = items?.length ?? 0;

  // The newest page (as many as are shown, so "Show older" is kept across refreshes).
  // biome-ignore lint/correctness/useExhaustiveDependencies: a refresh is asked by refreshKey and reloads; the count shown is read then, not followed.
  useEffect(() => {
    const controller = new AbortController();
    const limit = Math.min(100, Math.max(PAGE, shown));
    requestData<AgentWebhookDeliveryPage>('GET', deliveriesPath(webhookId, `?limit=${limit}`), { signal: controller.signal }).then(
      (page) => {
        setItems(page.items ?? []);
        setNextCursor(page.nextCursor ?? null);
        setError(undefined);
      },
      (e: unknown) => {
        if (!controller.signal.aborted) setError(e);
      },
    );
    return () => controller.abort();
  }, [webhookId, props.refreshKey, reloads]);

  const pending = items?.some((d) => d.status === 'pending') ?? false;
  // biome-ignore lint/correctness/useExhaustiveDependencies: each new list re-arms the timer, so reading goes on while something is pending.
  useEffect(() => {
    if (!pending) return;
    const timer = setTimeout(() => setReloads((n) => n + 1), PENDING_REFRESH_MS);
    return () => clearTimeout(timer);
  }, [pending, items]);

  const showOlder = async () => {
    if (!nextCursor) return;
    try {
      const page = await requestData<AgentWebhookDeliveryPage>('GET', deliveriesPath(webhookId, `?limit=${PAGE}&cursor=${encodeURIComponent(nextCursor)}`));
      setItems((list) => [...(list ?? []), ...(page.items ?? [])]);
      setNextCursor(page.nextCursor ?? null);
    } catch (e) {
      setActionError(errorMessage(e));
    }
  };

  const redeliver = async (deliveryId: string) => {
    setNotice(undefined);
    setActionError(undefined);
    setBusy(deliveryId);
    try {
      const queued = await requestData<QueuedAgentWebhookDelivery>('POST', `/api/v1/agent/webhooks/${encodeURIComponent(webhookId)}/deliveries/${encodeURIComponent(deliveryId)}/redeliver`);
      setNotice(queued.queued ? 'Redelivery queued, with the same event id.' : 'This event is already on its way; its next attempt is now.');
      setReloads((n) => n + 1);
    } catch (e) {
      setActionError(errorMessage(e));
    } finally {
      setBusy(undefined);
    }
  };

  const titleId = `deliveries-title-${webhookId}`;
  return (
    <section className="webhook-deliveries" aria-labelledby={titleId}>
      <div className="webhook-deliveries-head">
        <h3 id={titleId}>
          Recent deliveries <span className="mono small muted agent-settings-url">{props.webhook.url}</span>
        </h3>
        <div className="webhook-deliveries-actions">
          <button type="button" className="button button-small" onClick={() => setReloads((n) => n + 1)}>
            Refresh
          </button>
          <button type="button" className="button button-small" onClick={props.onClose}>
            Close
          </button>
        </div>
      </div>
      <ErrorNotice error={error} what="Deliveries could not be loaded" />
      {notice ? (
        <p className="notice notice-success" role="status">
          {notice}
        </p>
      ) : null}
      {actionError ? (
        <p className="field-error" role="alert">
          {actionError}
        </p>
      ) : null}
      {items === undefined && !error ? <Loading /> : null}
      {items?.length === 0 ? <p className="empty">No deliveries yet. Send a test event to try the receiver.</p> : null}
      {items?.length ? (
        <ul className="webhook-delivery-list" aria-label={`Deliveries to ${props.webhook.url}`}>
          {items.map((d) => (
            <li key={d.deliveryId} className="webhook-delivery" data-testid="agent-webhook-delivery">
              <div className="webhook-delivery-line">
                <span className={`badge ${STATUS_BADGE[d.status]}`}>{STATUS_WORDS[d.status]}</span>
                <span className="mono">{d.eventType}</span>
                <span className="muted small">{formatTime(d.lastAttemptAt ?? d.createdAt)}</span>
              </div>
              <dl className="webhook-delivery-facts">
                <div>
                  <dt>HTTP status</dt>
                  <dd>{d.lastStatusCode ?? 'none'}</dd>
                </div>
                <div>
                  <dt>Attempts</dt>
                  <dd>{d.attempts}</dd>
                </div>
                {d.status === 'pending' && d.nextAttemptAt ? (
                  <div>
                    <dt>Next attempt</dt>
                    <dd>{formatTime(d.nextAttemptAt)}</dd>
                  </div>
                ) : null}
                <div>
                  <dt>Event id</dt>
                  <dd className="mono agent-settings-url">{d.eventId}</dd>
                </div>
              </dl>
              {d.lastError ? <p className="webhook-delivery-error">{d.lastError}</p> : null}
              {props.webhook.status === 'active' ? (
                <button type="button" className="button button-small" disabled={busy === d.deliveryId} onClick={() => redeliver(d.deliveryId)} aria-label={`Redeliver ${d.eventType} (${d.eventId})`}>
                  Redeliver
                </button>
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
      {nextCursor ? (
        <button type="button" className="button button-small" onClick={showOlder}>
          Show older
        </button>
      ) : null}
    </section>
  );
}
