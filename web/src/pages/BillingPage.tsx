import { type FormEvent, useRef, useState } from 'react';
import { ApiError, errorMessage, requestData } from '../api/client.ts';
import type { AccountLedgerPage, BillingCheckout, BillingSummary, LedgerLink, Redemption } from '../api/index.ts';
import { describedBy, ErrorNotice, Field, Loading, Page, useAsync } from '../components/common.tsx';
import { DataTable } from '../components/DataTable.tsx';
import { centsToDollars, dollarsToCents, formatMicroUsd, formatTime, formatUsd } from '../format.ts';
import { Link, useLocation } from '../router.tsx';
import { UsageExport } from '../components/UsageExport.tsx';

/** Ledger kinds in words (the organization's ledger uses them too). */
export const KIND_LABELS: Record<string, string> = {
  credit: 'Credit',
  initial_credit: 'Opening balance',
  topup_credit: 'Top-up',
  redeem_credit: 'Redeem code',
  generation_debit: 'Generation',
  generation_refund: 'Refund (failed generation)',
  chat_charge: 'Chat',
  chat_hold: 'Chat hold (old)',
  chat_release: 'Chat release (old)',
  agent_hold: 'Agent hold',
  agent_release: 'Agent release',
  storage_charge: 'Storage',
};

const FILTERS = [
  { value: '', label: 'Everything' },
  { value: 'credit,initial_credit,topup_credit,redeem_credit', label: 'Money in' },
  { value: 'generation_debit,chat_charge,storage_charge', label: 'Charges' },
  { value: 'generation_refund', label: 'Refunds' },
];

const PAGE_SIZE = 25;

/** Balance, money held by running requests, every movement with what caused it, top-ups and redeem codes. */
export function BillingPage() {
  const { search } = useLocation();
  const [tick, setTick] = useState(0);
  const summary = useAsync((signal) => requestData<BillingSummary>('GET', '/api/v1/billing', { signal }), [tick]);
  const returned = search.get('checkout');
  const cancelled = search.get('cancelled') === '1';
  const returnedCheckout = useAsync(
    (signal) => (returned ? requestData<BillingCheckout>('GET', `/api/v1/billing/checkout/${encodeURIComponent(returned)}`, { signal }) : Promise.resolve(undefined)),
    [returned, tick],
  );
  const refresh = () => setTick((t) => t + 1);
  const data = summary.data;
  return (
    <Page title="Billing" lead="Your balance, what running requests hold, and every movement of money.">
      <ErrorNotice error={summary.error} what="The balance could not be loaded" />
      {returned ? <ReturnNotice checkout={returnedCheckout.data} cancelled={cancelled} onRefresh={refresh} /> : null}
      {!data && summary.loading ? <Loading /> : null}
      {data ? (
        <ul className="cards" aria-label="Balance">
          <li className="card">
            <span className="card-label">Balance</span>
            <span className="card-value" data-testid="billing-balance">
              {formatMicroUsd(data.balanceMicroUsd)}
            </span>
          </li>
          <li className="card">
            <span className="card-label">Held</span>
            <span className="card-value" data-testid="billing-held">
              {formatMicroUsd(data.heldMicroUsd)}
            </span>
            <span className="card-note">Reserved by requests still running; released or charged when they finish.</span>
          </li>
          <li className="card">
            <span className="card-label">Available</span>
            <span className="card-value" data-testid="billing-available">
              {formatMicroUsd(data.availableMicroUsd)}
            </span>
            <span className="card-note">What new requests can spend.</span>
          </li>
        </ul>
      ) : null}
      {data ? (
        <div className="billing-forms">
          <TopupForm topups={data.topups} />
          <RedeemForm onRedeemed={refresh} />
        </div>
      ) : null}
      {data && (data.holds.length > 0 || data.agentRuns.length > 0) ? <HoldsPanel summary={data} /> : null}
      <LedgerPanel tick={tick} />
      <UsageExport />
    </Page>
  );
}

function ReturnNotice(props: { checkout: BillingCheckout | undefined; cancelled: boolean; onRefresh: () => void }) {
  const { checkout } = props;
  if (!checkout) return null;
  if (checkout.status === 'paid') {
    return (
      <p className="notice notice-success" role="status" data-testid="checkout-result">
        Payment received: {formatMicroUsd(checkout.amountMicroUsd)} was added to your balance.
      </p>
    );
  }
  if (checkout.status === 'review') {
    return (
      <p className="notice notice-info" role="status" data-testid="checkout-result">
        The payment provider reported a different amount than this top-up; nothing was added to your balance yet. The operator has been told and will settle it.
      </p>
    );
  }
  if (props.cancelled || checkout.status === 'expired' || checkout.status === 'failed') {
    return (
      <p className="notice notice-info" role="status" data-testid="checkout-result">
        {checkout.status === 'failed' ? 'The payment failed' : 'The top-up was not completed'}; nothing was charged to your balance.
      </p>
    );
  }
  return (
    <p className="notice notice-info" role="status" data-testid="checkout-result">
      Waiting for the payment provider to confirm your payment of {formatMicroUsd(checkout.amountMicroUsd)}; your balance updates as soon as it does.{' '}
      <button type="button" className="button button-small" onClick={props.onRefresh}>
        Check again
      </button>
    </p>
  );
}

function TopupForm(props: { topups: BillingSummary['topups'] }) {
  const { minCents, maxCents, enabled } = props.topups;
  const [dollars, setDollars] = useState('20');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  // One key per intended payment: a double click opens one checkout.
  const key = useRef(crypto.randomUUID());
  const hint = `From $${centsToDollars(minCents)} to $${centsToDollars(maxCents).toLocaleString('en-US')}. You pay on the payment provider's page and come back here.`;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    const cents = dollarsToCents(dollars);
    if (!Number.isFinite(cents) || cents < minCents || cents > maxCents) {
      setError(`Enter an amount from $${centsToDollars(minCents)} to $${centsToDollars(maxCents)}.`);
      return;
    }
    setBusy(true);
    try {
      const checkout = await requestData<BillingCheckout>('POST', '/api/v1/billing/checkout', { body: { amountCents: cents }, headers: { 'idempotency-key': `${key.current}-${cents}` } });
      if (checkout.url) window.location.assign(checkout.url);
    } catch (e) {
      setError(errorMessage(e));
      setBusy(false);
    }
  };

  return (
    <section className="panel" aria-labelledby="topup-title">
      <h2 id="topup-title">Add funds</h2>
      {enabled ? (
        <form onSubmit={submit} className="narrow-form">
          <Field id="topup-amount" label="Amount (USD)" hint={hint} {...(error ? { error } : {})}>
            <input
              id="topup-amount"
              type="number"
              inputMode="decimal"
              min={centsToDollars(minCents)}
              max={centsToDollars(maxCents)}
              step="0.01"
              required
              value={dollars}
              onChange={(e) => setDollars(e.target.value)}
              aria-describedby={describedBy('topup-amount', hint, error)}
            />
          </Field>
          <button type="submit" className="button button-primary" disabled={busy}>
            {busy ? 'Opening the payment page…' : 'Pay with card'}
          </button>
        </form>
      ) : (
        <p className="muted">Card payments are not enabled on this gateway. Ask the operator for a redeem code or a credit.</p>
      )}
    </section>
  );
}

function RedeemForm(props: { onRedeemed: () => void }) {
  const [code, setCode] = useState('');
  const [result, setResult] = useState<{ ok: boolean; text: string } | undefined>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setResult(undefined);
    try {
      const entry = await requestData<Redemption>('POST', '/api/v1/billing/redeem', { body: { code: code.trim() } });
      setResult({ ok: true, text: `Redeemed: ${formatMicroUsd(entry.amountMicroUsd)} added. Balance ${formatMicroUsd(entry.balanceAfterMicroUsd)}.` });
      setCode('');
      props.onRedeemed();
    } catch (e) {
      setResult({ ok: false, text: e instanceof ApiError && e.status === 404 ? 'This code does not exist. Check it and try again.' : errorMessage(e) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="panel" aria-labelledby="redeem-title">
      <h2 id="redeem-title">Redeem a code</h2>
      <form onSubmit={submit} className="narrow-form">
        <Field id="redeem-code" label="Code" {...(result && !result.ok ? { error: result.text } : {})}>
          <input
            id="redeem-code"
            autoComplete="off"
            spellCheck={false}
            required
            maxLength={100}
            value={code}
            onChange={(e) => setCode(e.target.value)}
            aria-describedby={describedBy('redeem-code', undefined, result && !result.ok ? result.text : undefined)}
          />
        </Field>
        {result?.ok ? (
          <p className="notice notice-success" role="status">
            {result.text}
          </p>
        ) : null}
        <button type="submit" className="button button-primary" disabled={busy}>
          Redeem
        </button>
      </form>
    </section>
  );
}

function HoldsPanel(props: { summary: BillingSummary }) {
  const { holds, agentRuns } = props.summary;
  return (
    <section className="panel" aria-labelledby="holds-title">
      <h2 id="holds-title">Held right now</h2>
      {holds.length > 0 ? (
        <DataTable label="Holds" columns={[{ label: 'Since' }, { label: 'Chat request' }, { label: 'Model' }, { label: 'Held', numeric: true }]}>
          {holds.map((h) => (
            <tr key={h.chatRequestId}>
              <th scope="row">{formatTime(h.createdAt)}</th>
              <td>
                <LinkCell link={{ type: 'chat_request', id: h.chatRequestId, agentConversationId: h.agentConversationId }} />
              </td>
              <td>{h.model}</td>
              <td className="num" title={formatMicroUsd(h.amountMicroUsd)}>
                {formatUsd(h.amountMicroUsd)}
              </td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      {agentRuns.length > 0 ? (
        <>
          <h3>Agent runs in progress</h3>
          <ul className="plain-list">
            {agentRuns.map((r) => (
              <li key={r.runId}>
                <Link to={`/agent/c/${encodeURIComponent(r.conversationId)}`}>Conversation</Link> ({r.status.replace(/_/g, ' ')}): {formatUsd(r.settledMicroUsd)} spent and{' '}
                {formatUsd(r.committedMicroUsd)} committed of its {formatUsd(r.limitMicroUsd)} limit
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}

function LedgerPanel(props: { tick: number }) {
  const [kind, setKind] = useState('');
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors.at(-1);
  const page = useAsync(
    (signal) => {
      const query = new URLSearchParams({ limit: String(PAGE_SIZE) });
      if (kind) query.set('kind', kind);
      if (cursor) query.set('cursor', cursor);
      return requestData<AccountLedgerPage>('GET', `/api/v1/billing/ledger?${query}`, { signal });
    },
    [kind, cursor, props.tick],
  );
  return (
    <section className="panel" aria-labelledby="ledger-title">
      <h2 id="ledger-title">Ledger</h2>
      <div className="toolbar">
        <div className="field field-inline">
          <label htmlFor="ledger-kind">Show</label>
          <select
            id="ledger-kind"
            value={kind}
            onChange={(e) => {
              setKind(e.target.value);
              setCursors([]);
            }}
          >
            {FILTERS.map((f) => (
              <option key={f.value} value={f.value}>
                {f.label}
              </option>
            ))}
          </select>
        </div>
      </div>
      <ErrorNotice error={page.error} what="The ledger could not be loaded" />
      {!page.data && page.loading ? <Loading /> : null}
      {page.data && page.data.items.length === 0 ? <p className="muted">No entries{kind ? ' of this kind' : ''} yet.</p> : null}
      {page.data && page.data.items.length > 0 ? (
        <DataTable label="Ledger" testId="ledger-table" columns={[{ label: 'When' }, { label: 'What' }, { label: 'About' }, { label: 'Amount', numeric: true }, { label: 'Balance after', numeric: true }]}>
          {page.data.items.map((e) => (
            <tr key={e.id}>
              <th scope="row">{formatTime(e.createdAt)}</th>
              <td>
                {KIND_LABELS[e.kind] ?? e.kind}
                {e.note && (e.kind === 'credit' || e.kind === 'redeem_credit') ? <span className="muted small"> · {e.note}</span> : null}
              </td>
              <td>
                <LinkCell link={e.link} />
              </td>
              <td className={Number(e.amountMicroUsd) >= 0 ? 'num amount-in' : 'num'} title={formatMicroUsd(e.amountMicroUsd)}>
                {Number(e.amountMicroUsd) > 0 ? '+' : ''}
                {formatUsd(e.amountMicroUsd)}
              </td>
              <td className="num" title={formatMicroUsd(e.balanceAfterMicroUsd)}>
                {formatUsd(e.balanceAfterMicroUsd)}
              </td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      <div className="toolbar">
        {cursors.length > 0 ? (
          <button type="button" className="button button-small" onClick={() => setCursors((c) => c.slice(0, -1))}>
            Newer
          </button>
        ) : null}
        {page.data?.nextCursor ? (
          <button type="button" className="button button-small" onClick={() => setCursors((c) => [...c, page.data?.nextCursor ?? ''])}>
            Older
          </button>
        ) : null}
      </div>
    </section>
  );
}

function LinkCell(props: { link: LedgerLink }) {
  const { link } = props;
  const agent = link.agentConversationId ? (
    <>
      {' '}
      · <Link to={`/agent/c/${encodeURIComponent(link.agentConversationId)}`}>agent conversation</Link>
    </>
  ) : null;
  // Each row links to what it is about; the id stays beside the name for support questions.
  switch (link.type) {
    case 'generation':
      return (
        <>
          <Link to={`/generations/${encodeURIComponent(link.id ?? '')}`} className="mono">
            {link.id}
          </Link>
          {agent}
        </>
      );
    case 'chat_request':
      return (
        <>
          {link.model ? <span data-testid="ledger-chat-model">{link.model}</span> : 'chat request'} <span className="mono small muted">{link.id}</span>
          {agent}
        </>
      );
    case 'topup':
      return <span className="mono">{link.checkoutId ?? link.id}</span>;
    case 'redeem_code':
      // A user's codes have no page of their own: the link goes to the form they are redeemed with.
      return (
        <a href="#redeem-title" className="mono">
          {link.id}
        </a>
      );
    case 'storage':
      return <Link to="/storage">storage plan</Link>;
    default:
      return <span className="muted">—</span>;
  }
}
