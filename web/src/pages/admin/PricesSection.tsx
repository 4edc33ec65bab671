import { type FormEvent, useEffect, useState } from 'react';
import { errorMessage, request } from '../../api/client.ts';
import type { CatalogModel, ModelSetting } from '../../api/index.ts';
import { ErrorNotice, Field, useAsync } from '../../components/common.tsx';

/** One model's visibility and prices, changed live: requests made after the change pay the new price. */
export function PricesSection() {
  const [modelId, setModelId] = useState('');
  const [shown, setShown] = useState('');
  const [tick, setTick] = useState(0);
  const setting = useAsync((signal) => (shown ? request<ModelSetting>('GET', `/admin/v1/models/${encodeURIComponent(shown)}`, { signal }) : Promise.resolve(undefined)), [shown, tick]);
  const catalog = useAsync((signal) => (shown ? request<CatalogModel>('GET', `/api/v1/catalog/${encodeURIComponent(shown)}`, { signal }).catch(() => undefined) : Promise.resolve(undefined)), [shown, tick]);
  const [draft, setDraft] = useState({ inputPrice: '', outputPrice: '', tiers: '', hidden: false });
  const [notice, setNotice] = useState<{ ok: boolean; text: string } | undefined>();

  useEffect(() => {
    const s = setting.data?.setting as { inputPrice?: string; outputPrice?: string; hidden?: boolean; pricing?: Array<{ key: string; price: string }> } | undefined;
    setDraft({ inputPrice: s?.inputPrice ?? '', outputPrice: s?.outputPrice ?? '', tiers: (s?.pricing ?? []).map((t) => `${t.key}=${t.price}`).join(', '), hidden: s?.hidden === true });
  }, [setting.data]);

  const save = async (event: FormEvent) => {
    event.preventDefault();
    setNotice(undefined);
    try {
      const body: Record<string, unknown> = {};
      if (draft.hidden) body.hidden = true;
      if (draft.inputPrice.trim()) body.inputPrice = draft.inputPrice.trim();
      if (draft.outputPrice.trim()) body.outputPrice = draft.outputPrice.trim();
      if (draft.tiers.trim()) {
        body.pricing = draft.tiers.split(',').map((pair) => {
          const [key, price] = pair.split('=').map((p) => p.trim());
          return { key, price };
        });
      }
      if (setting.data?.version) body.expectedVersion = setting.data.version;
      await request('PUT', `/admin/v1/models/${encodeURIComponent(shown)}`, { body });
      setNotice({ ok: true, text: `${shown} saved: new requests pay the new price; requests already running pay what they were told.` });
      setTick((t) => t + 1);
    } catch (e) {
      setNotice({ ok: false, text: errorMessage(e, 'admin') });
    }
  };
  const reset = async () => {
    try {
      await request('DELETE', `/admin/v1/models/${encodeURIComponent(shown)}`);
      setNotice({ ok: true, text: `${shown} follows the config file again.` });
      setTick((t) => t + 1);
    } catch (e) {
      setNotice({ ok: false, text: errorMessage(e, 'admin') });
    }
  };

  const current = catalog.data;
  return (
    <section className="panel" aria-labelledby="upstream-prices-title">
      <h2 id="upstream-prices-title">Prices and visibility</h2>
      <form
        className="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          setShown(modelId.trim());
          // Showing the same model again reads it again (its live state moves).
          setTick((t) => t + 1);
          setNotice(undefined);
        }}
      >
        <Field id="price-model" label="Model" inline>
          <input id="price-model" required value={modelId} onChange={(e) => setModelId(e.target.value)} placeholder="gpt-5.4-mini" />
        </Field>
        <button type="submit" className="button">
          Show prices
        </button>
      </form>
      {notice ? (
        <p className={notice.ok ? 'notice notice-success' : 'notice notice-error'} role={notice.ok ? 'status' : 'alert'}>
          {notice.text}
        </p>
      ) : null}
      <ErrorNotice error={setting.error} what="The setting could not be loaded" />
      {setting.data ? (
        <>
          <p data-testid="current-price">
            {current ? `Now: ${current.pricing.map((t) => `${t.key} $${t.price}`).join(' · ')} (per ${current.priceUnit})` : 'Hidden: not in the public catalog.'}{' '}
            {setting.data.source === 'live' ? `Changed live (version ${setting.data.version}).` : setting.data.source === 'file' ? 'Set in the config file.' : 'The built-in prices.'}
          </p>
          <form onSubmit={save} aria-label={`Prices of ${shown}`}>
            <div className="inline-form">
              <Field id="price-input" label="Input, USD per 1M tokens (text models)" inline>
                <input id="price-input" inputMode="decimal" pattern="\d{1,9}(\.\d{1,6})?" value={draft.inputPrice} onChange={(e) => setDraft({ ...draft, inputPrice: e.target.value })} />
              </Field>
              <Field id="price-output" label="Output, USD per 1M tokens" inline>
                <input id="price-output" inputMode="decimal" pattern="\d{1,9}(\.\d{1,6})?" value={draft.outputPrice} onChange={(e) => setDraft({ ...draft, outputPrice: e.target.value })} />
              </Field>
            </div>
            <Field id="price-tiers" label="Media tiers (key=USD, comma-separated)" hint="For example 720p=0.05, 1080p=0.08">
              <input id="price-tiers" value={draft.tiers} onChange={(e) => setDraft({ ...draft, tiers: e.target.value })} />
            </Field>
            <label className="checkbox">
              <input type="checkbox" checked={draft.hidden} onChange={(e) => setDraft({ ...draft, hidden: e.target.checked })} /> Hide this model (new requests are refused)
            </label>
            <div className="toolbar">
              <button type="submit" className="button button-primary">
                Save prices
              </button>
              {setting.data.source === 'live' ? (
                <button type="button" className="button" onClick={() => void reset()}>
                  Back to the config file
                </button>
              ) : null}
            </div>
          </form>
        </>
      ) : null}
    </section>
  );
}
