import { useMemo, useState } from 'react';
import { request } from '../api/client.ts';
import type { CatalogModel, CostTable, ModelPrices, ParamField, PriceTier } from '../api/index.ts';
import { ErrorNotice, Field, Loading, Page, useAsync } from '../components/common.tsx';
import { DataTable } from '../components/DataTable.tsx';
import { Link } from '../router.tsx';

const KINDS = [
  { value: 'all', label: 'All' },
  { value: 'IMAGE', label: 'Image' },
  { value: 'VIDEO', label: 'Video' },
  { value: 'MUSIC', label: 'Music' },
  { value: 'TEXT', label: 'Text' },
] as const;
type Kind = (typeof KINDS)[number]['value'];

const UNIT_LABELS: Record<CatalogModel['priceUnit'], string> = {
  generation: 'per generation',
  second: 'per second',
  megatoken: 'per 1M tokens',
};

/** The catalog joined with the price table: every model's prices, parameters and capabilities. */
export function ModelsPage() {
  const catalog = useAsync((signal) => request<CatalogModel[]>('GET', '/api/v1/catalog', { signal }), []);
  const cost = useAsync((signal) => request<CostTable>('GET', '/api/v1/cost', { signal }), []);
  const [query, setQuery] = useState('');
  const [kind, setKind] = useState<Kind>('all');
  const prices = useMemo(() => new Map((cost.data?.models ?? []).map((m) => [m.model, m])), [cost.data]);
  const shown = useMemo(() => {
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    return (catalog.data ?? []).filter((m) => {
      if (kind !== 'all' && m.type !== kind) return false;
      const text = [m.id, m.name, m.vendor ?? '', m.group, m.description ?? '', ...m.tags, ...m.capabilities].join(' ').toLowerCase();
      return words.every((w) => text.includes(w));
    });
  }, [catalog.data, query, kind]);

  return (
    <Page title="Models and pricing" lead="Every model this gateway serves, with what it costs, what it can do and the parameters it takes. Prices are in USD and are what your balance is charged.">
      <div className="toolbar models-toolbar">
        <Field id="model-search" label="Search models" inline>
          <input id="model-search" type="search" value={query} placeholder="Name, vendor or capability" onChange={(e) => setQuery(e.target.value)} />
        </Field>
        <fieldset className="segmented">
          <legend className="visually-hidden">Kind</legend>
          {KINDS.map((k) => (
            <label key={k.value} className={kind === k.value ? 'segment segment-active' : 'segment'}>
              <input type="radio" name="model-kind" value={k.value} checked={kind === k.value} onChange={() => setKind(k.value)} />
              {k.label}
            </label>
          ))}
        </fieldset>
      </div>
      <ErrorNotice error={catalog.error ?? cost.error} what="The catalog could not be loaded" />
      {catalog.loading && !catalog.data ? <Loading label="Loading the models…" /> : null}
      {catalog.data ? (
        <p className="muted small" role="status" data-testid="model-count">
          {shown.length === 1 ? '1 model' : `${shown.length} models`}
        </p>
      ) : null}
      <ul className="model-list">
        {shown.map((model) => (
          <ModelCard key={model.id} model={model} prices={prices.get(model.id)} />
        ))}
      </ul>
    </Page>
  );
}

function ModelCard(props: { model: CatalogModel; prices: ModelPrices | undefined }) {
  const { model, prices } = props;
  const headingId = `model-${model.id.replace(/[^A-Za-z0-9_-]/g, '-')}`;
  return (
    <li className="panel model-card" aria-labelledby={headingId}>
      <h2 id={headingId}>{model.name}</h2>
      <p className="muted small">
        <span className="mono model-id">{model.id}</span>
        {model.vendor ? ` · ${model.vendor}` : ''} · <span className="badge">{model.type.toLowerCase()}</span>
      </p>
      {model.description ? <p>{model.description}</p> : null}
      {model.capabilities.length > 0 ? (
        <ul className="tag-list" aria-label="Capabilities">
          {model.capabilities.map((c) => (
            <li key={c} className="badge">
              {c}
            </li>
          ))}
        </ul>
      ) : null}
      {prices?.tokens ? <TokenPrices tokens={prices.tokens} /> : <TierPrices tiers={prices?.tiers ?? []} unit={model.priceUnit} />}
      <details>
        <summary>Parameters ({model.params.length})</summary>
        <ParamList params={model.params} />
      </details>
      <p className="small">
        {model.kind === 'llm' ? <Link to="/chat">Try it in Chat</Link> : <Link to={`/playground?model=${encodeURIComponent(model.id)}`}>Try it in the playground</Link>}
      </p>
    </li>
  );
}

function TierPrices(props: { tiers: PriceTier[]; unit: CatalogModel['priceUnit'] }) {
  if (props.tiers.length === 0) return <p className="muted">No price listed.</p>;
  return (
    <DataTable label="Prices" className="price-table" columns={[{ label: 'Options' }, { label: `Price (${UNIT_LABELS[props.unit]})`, numeric: true }]}>
      {props.tiers.map((tier) => (
        <tr key={tier.key}>
          <th scope="row">
            {tierLabel(tier)}
            {tier.isDefault ? <span className="muted small"> (default)</span> : null}
          </th>
          <td className="num">${tier.price}</td>
        </tr>
      ))}
    </DataTable>
  );
}

function tierLabel(tier: PriceTier): string {
  const dimensions = Object.entries(tier.dimensions ?? {});
  if (dimensions.length === 0) return tier.key === 'default' ? 'Any' : tier.key;
  return dimensions.map(([name, value]) => `${name} ${value}`).join(', ');
}

function TokenPrices(props: { tokens: NonNullable<ModelPrices['tokens']> }) {
  const { tokens } = props;
  const rows: [string, string | undefined][] = [
    ['Input', tokens.input],
    ['Output', tokens.output],
    ['Cached input', tokens.cachedInput],
    ['Cache write (5 min)', tokens.cacheWrite],
    ['Cache write (1 h)', tokens.cacheWrite1h],
    ['Priority input', tokens.priority?.input],
    ['Priority output', tokens.priority?.output],
  ];
  return (
    <DataTable label="Token prices" className="price-table" columns={[{ label: 'Tokens' }, { label: 'Price (per 1M tokens)', numeric: true }]}>
      {rows
        .filter((row): row is [string, string] => row[1] !== undefined)
        .map(([label, price]) => (
          <tr key={label}>
            <th scope="row">{label}</th>
            <td className="num">${price}</td>
          </tr>
        ))}
      {tokens.webSearchPer1k ? (
        <tr>
          <th scope="row">Web search (per 1,000)</th>
          <td className="num">${tokens.webSearchPer1k}</td>
        </tr>
      ) : null}
    </DataTable>
  );
}

function ParamList(props: { params: ParamField[] }) {
  return (
    <dl className="param-list">
      {props.params.map((param) => (
        <div key={param.name}>
          <dt>
            <span className="mono">{param.name}</span>
            {param.required ? <span className="muted small"> (required)</span> : null}
          </dt>
          <dd>
            {param.label}
            {param.description && param.description !== param.label ? `: ${param.description}` : ''}
            <span className="muted small"> {paramRange(param)}</span>
          </dd>
        </div>
      ))}
    </dl>
  );
}

function paramRange(param: ParamField): string {
  const parts: string[] = [param.isArray ? `list of ${param.kind}` : param.kind];
  if (param.options?.length) parts.push(`one of ${param.options.map((o) => String(o.value)).join(', ')}`);
  if (param.minimum !== undefined || param.maximum !== undefined) parts.push(`${param.minimum ?? '…'} to ${param.maximum ?? '…'}`);
  if (param.default !== undefined && param.default !== null) parts.push(`default ${Array.isArray(param.default) ? param.default.join(', ') : String(param.default)}`);
  return `(${parts.join('; ')})`;
}
