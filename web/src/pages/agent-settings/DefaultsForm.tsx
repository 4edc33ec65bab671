import { type FormEvent, useState } from 'react';
import { ApiError, errorMessage, requestData } from '../../api/client.ts';
import type { AgentSettings, AgentSettingsView } from '../../api/index.ts';
import { describedBy, Field } from '../../components/common.tsx';
import { dollarsToMicro, microToDollars } from '../../format.ts';
import type { AgentModelOption } from './agent-models.ts';

/** The gateway's run limit when neither the message nor the settings give one (domain/agent/agent-settings.ts). */
const BUILT_IN_RUN_LIMIT_MICRO = '2000000';
const POLICIES = [
  { value: 'defaults', label: 'Defaults first', hint: 'Use the defaults below unless the inputs do not fit them.' },
  { value: 'cheapest', label: 'Cheapest fitting', hint: 'Use the cheapest model that fits each step.' },
  { value: 'pinned', label: 'Pinned', hint: 'Only the defaults; a change of model is asked first.' },
] as const;
type Policy = (typeof POLICIES)[number]['value'];

/** The agent defaults: models, routing policy and the run limit, saved with the version they were read at. */
export function DefaultsForm(props: { view: AgentSettingsView; models: AgentModelOption[]; onSaved: (view: AgentSettingsView) => void }) {
  const initial = props.view.settings;
  const [orchestrator, setOrchestrator] = useState(initial.orchestratorModelId ?? '');
  const [fallbacks, setFallbacks] = useState<string[]>(initial.fallbackModelIds ?? []);
  const [image, setImage] = useState(initial.imageModelId ?? '');
  const [video, setVideo] = useState(initial.videoModelId ?? '');
  const [music, setMusic] = useState(initial.musicModelId ?? '');
  const [policy, setPolicy] = useState<Policy>(initial.routingPolicy ?? 'defaults');
  const [limit, setLimit] = useState(microToDollars(initial.defaultMaxCostMicroUsd ?? BUILT_IN_RUN_LIMIT_MICRO));
  const [limitError, setLimitError] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [saved, setSaved] = useState(false);
  const [saving, setSaving] = useState(false);

  const text = props.models.filter((m) => m.type === 'TEXT');
  const ofType = (type: string) => props.models.filter((m) => m.type === type);

  const save = async (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    setError(undefined);
    const micro = dollarsToMicro(limit);
    if (micro === undefined || micro === '0') {
      setLimitError('Enter an amount in dollars above zero, such as 2.00');
      return;
    }
    setLimitError(undefined);
    // Empty selects are left out so the gateway keeps its own default for them.
    const settings: AgentSettings = {
      ...(orchestrator ? { orchestratorModelId: orchestrator } : {}),
      fallbackModelIds: fallbacks.filter(Boolean),
      ...(image ? { imageModelId: image } : {}),
      ...(video ? { videoModelId: video } : {}),
      ...(music ? { musicModelId: music } : {}),
      routingPolicy: policy,
      defaultMaxCostMicroUsd: micro,
    };
    setSaving(true);
    try {
      const next = await requestData<AgentSettingsView>('PUT', '/api/v1/agent/settings', { body: { expectedVersion: props.view.version, settings } });
      setSaved(true);
      props.onSaved(next);
    } catch (e) {
      setError(e instanceof ApiError && e.status === 409 ? 'These settings were changed elsewhere. Reload the page to see them, then save again.' : errorMessage(e));
    } finally {
      setSaving(false);
    }
  };

  return (
    <form className="panel agent-settings-form" onSubmit={save} aria-labelledby="defaults-title" noValidate>
      <h2 id="defaults-title">Models and limits</h2>
      <ModelSelect id="orchestrator" label="Orchestrator model" hint="The text model that plans the run and calls the tools." models={text} value={orchestrator} onChange={setOrchestrator} />
      <fieldset className="field-group">
        <legend>Fallback models</legend>
        <p className="hint">Tried in order when the orchestrator has failed. At most five.</p>
        {fallbacks.map((value, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: the rows are positions in an ordered list.
          <div className="copy-row" key={index}>
            <ModelSelect
              id={`fallback-${index}`}
              label={`Fallback ${index + 1}`}
              models={text}
              value={value}
              onChange={(next) => setFallbacks((list) => list.map((v, i) => (i === index ? next : v)))}
            />
            <button type="button" className="button button-small" onClick={() => setFallbacks((list) => list.filter((_, i) => i !== index))}>
              Remove fallback {index + 1}
            </button>
          </div>
        ))}
        {fallbacks.length < 5 ? (
          <button type="button" className="button button-small" onClick={() => setFallbacks((list) => [...list, ''])}>
            Add a fallback
          </button>
        ) : null}
      </fieldset>
      <ModelSelect id="image-model" label="Default image model" models={ofType('IMAGE')} value={image} onChange={setImage} />
      <ModelSelect id="video-model" label="Default video model" models={ofType('VIDEO')} value={video} onChange={setVideo} />
      <ModelSelect id="music-model" label="Default music model" models={ofType('MUSIC')} value={music} onChange={setMusic} />
      <fieldset className="field-group">
        <legend>Routing policy</legend>
        {POLICIES.map((p) => (
          <label key={p.value} className="agent-settings-choice">
            <input type="radio" name="routing-policy" value={p.value} checked={policy === p.value} onChange={() => setPolicy(p.value)} /> {p.label}
            <span className="hint"> — {p.hint}</span>
          </label>
        ))}
      </fieldset>
      <Field id="run-limit" label="Default run limit (USD)" hint="What one run may spend when its message sets no limit. The built-in limit is $2.00." error={limitError}>
        <input id="run-limit" inputMode="decimal" value={limit} onChange={(e) => setLimit(e.target.value)} aria-invalid={limitError ? true : undefined} aria-describedby={describedBy('run-limit', 'hint', limitError)} />
      </Field>
      <div>
        <button type="submit" className="button button-primary" disabled={saving}>
          Save settings
        </button>
      </div>
      {saved ? (
        <p className="notice notice-success" role="status">
          Settings saved.
        </p>
      ) : null}
      {error ? (
        <p className="field-error" role="alert">
          {error}
        </p>
      ) : null}
    </form>
  );
}

function ModelSelect(props: { id: string; label: string; hint?: string; models: AgentModelOption[]; value: string; onChange: (value: string) => void }) {
  // A saved model the list no longer offers stays selectable, so opening the page changes nothing.
  const known = props.value === '' || props.models.some((m) => m.id === props.value);
  return (
    <Field id={props.id} label={props.label} {...(props.hint ? { hint: props.hint } : {})}>
      <select id={props.id} value={props.value} onChange={(e) => props.onChange(e.target.value)} aria-describedby={describedBy(props.id, props.hint)}>
        <option value="">Gateway default</option>
        {known ? null : <option value={props.value}>{props.value}</option>}
        {props.models.map((m) => (
          <option key={m.id} value={m.id}>
            {m.name}
            {m.executable ? '' : ' (no provider)'}
          </option>
        ))}
      </select>
    </Field>
  );
}
