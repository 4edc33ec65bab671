import { useState } from 'react';
import { errorMessage, requestData } from '../api/client.ts';
import type { WebhookDelivery, WebhookSecret } from '../api/index.ts';
import { CopyButton, ErrorNotice, Loading, Page, useAsync } from '../components/common.tsx';
import { formatTime } from '../format.ts';
import { Deliveries } from './GenerationDetailPage.tsx';

/** The signing secret of completion webhooks (show, copy, rotate) and the recent deliveries. */
export function WebhooksPage() {
  const secret = useAsync((signal) => requestData<WebhookSecret>('GET', '/api/v1/webhooks/secret', { signal }), []);
  const deliveries = useAsync((signal) => requestData<WebhookDelivery[]>('GET', '/api/v1/webhooks/deliveries?limit=20', { signal }), []);
  const [shown, setShown] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [rotated, setRotated] = useState<WebhookSecret | undefined>();
  const [error, setError] = useState<string | undefined>();

  const current = rotated ?? secret.data;
  const rotate = async () => {
    setError(undefined);
    try {
      setRotated(await requestData<WebhookSecret>('POST', '/api/v1/webhooks/secret/rotate'));
      setShown(true);
      setConfirming(false);
    } catch (e) {
      setError(errorMessage(e));
    }
  };

  return (
    <Page
      title="Webhooks"
      lead="When a generation ends, the webhook URL given at creation receives the task status, signed per Standard Webhooks (headers webhook-id, webhook-timestamp, webhook-signature). Verify the signature with this secret."
    >
      <section className="panel" aria-labelledby="secret-title">
        <h2 id="secret-title">Signing secret</h2>
        <ErrorNotice error={secret.error} what="The secret could not be loaded" missingEndpoint="Webhook signing is not available on this gateway yet." />
        {secret.loading && !secret.data ? <Loading /> : null}
        {current ? (
          <>
            <div className="copy-row">
              <label htmlFor="webhook-secret" className="visually-hidden">
                Webhook signing secret
              </label>
              <input id="webhook-secret" className="mono" readOnly type={shown ? 'text' : 'password'} value={current.secret} data-testid="webhook-secret" />
              <button type="button" className="button" onClick={() => setShown((s) => !s)} aria-pressed={shown}>
                {shown ? 'Hide' : 'Show'}
              </button>
              <CopyButton text={current.secret} targetId="webhook-secret" label="Copy secret" />
            </div>
            {current.previousSecretValidUntil ? (
              <p className="hint">Until {formatTime(current.previousSecretValidUntil)}, deliveries also carry a signature made with the previous secret, so receivers can switch without missing one.</p>
            ) : null}
            {rotated ? (
              <p className="notice notice-success" role="status">
                The secret was rotated. Update your receivers.
              </p>
            ) : null}
            {confirming ? (
              <fieldset className="confirm">
                <legend>Rotate the secret? Receivers must switch to the new one within 24 hours.</legend>
                <button type="button" className="button button-danger" onClick={rotate}>
                  Rotate now
                </button>{' '}
                <button type="button" className="button" onClick={() => setConfirming(false)}>
                  Cancel
                </button>
              </fieldset>
            ) : (
              <button type="button" className="button" onClick={() => setConfirming(true)}>
                Rotate secret…
              </button>
            )}
            {error ? (
              <p className="field-error" role="alert">
                {error}
              </p>
            ) : null}
          </>
        ) : null}
      </section>
      <section className="panel" aria-labelledby="deliveries-title">
        <h2 id="deliveries-title">Recent deliveries</h2>
        <ErrorNotice error={deliveries.error} what="Deliveries could not be loaded" missingEndpoint="The delivery log is not available on this gateway yet." />
        {deliveries.data ? <Deliveries deliveries={deliveries.data} /> : null}
      </section>
    </Page>
  );
}
