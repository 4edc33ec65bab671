import type { AgentModel, AgentProfile } from '../../api/index.ts';
import { ErrorNotice } from '../../components/common.tsx';
import { modelGroups } from './useAgentChoices.ts';

export interface SetupChoice {
  mode: 'auto' | 'manual';
  /** Manual mode: the model that makes the result ('' until one is chosen). */
  selectedModelId: string;
  /** '' for no profile. */
  profileId: string;
}

export const DEFAULT_SETUP: SetupChoice = { mode: 'auto', selectedModelId: '', profileId: '' };

/** The create fields for a choice (the API refuses selectedModelId in automatic mode). */
export function setupFields(choice: SetupChoice): { mode: 'auto' | 'manual'; selectedModelId?: string; profileId?: string } {
  return {
    mode: choice.mode,
    ...(choice.mode === 'manual' ? { selectedModelId: choice.selectedModelId } : {}),
    ...(choice.profileId ? { profileId: choice.profileId } : {}),
  };
}

/**
 * How a new conversation works, chosen before its first message (the API fixes mode, model and
 * profile when it creates the conversation): automatic model choice or one model picked by name, and
 * an assistant profile.
 */
export function ConversationSetup(props: {
  choice: SetupChoice;
  onChange: (choice: SetupChoice) => void;
  models: AgentModel[] | undefined;
  profiles: AgentProfile[] | undefined;
  loadError: unknown;
  modelError: string | undefined;
}) {
  const { choice, onChange } = props;
  const profile = props.profiles?.find((p) => p.profileId === choice.profileId);
  return (
    <div className="agent-setup" data-testid="conversation-setup">
      <ErrorNotice error={props.loadError} what="Models and profiles could not be loaded" />
      <fieldset className="agent-fieldset">
        <legend>Models</legend>
        <label className="field-checkbox">
          <input type="radio" name="conversation-mode" checked={choice.mode === 'auto'} onChange={() => onChange({ ...choice, mode: 'auto' })} /> Automatic: the agent picks a model for each step
        </label>
        <label className="field-checkbox">
          <input type="radio" name="conversation-mode" checked={choice.mode === 'manual'} onChange={() => onChange({ ...choice, mode: 'manual' })} /> Manual: you pick the model that makes the result
        </label>
        {choice.mode === 'manual' ? (
          <div className="field">
            <label htmlFor="conversation-model">Model</label>
            <select
              id="conversation-model"
              value={choice.selectedModelId}
              onChange={(e) => onChange({ ...choice, selectedModelId: e.target.value })}
              aria-invalid={props.modelError ? true : undefined}
              aria-describedby={props.modelError ? 'conversation-model-error' : 'conversation-model-hint'}
            >
              <option value="">Choose a model…</option>
              {modelGroups(props.models ?? []).map((group) => (
                <optgroup key={group.label} label={group.label}>
                  {group.models.map((m) => (
                    <option key={m.id} value={m.id}>
                      {m.name}
                    </option>
                  ))}
                </optgroup>
              ))}
            </select>
            <p className="hint" id="conversation-model-hint">
              A text model plans the run and keeps the agent's tools; an image, video or music model makes that kind of result. It stays fixed unless you approve a change.
            </p>
            {props.modelError ? (
              <p className="field-error" id="conversation-model-error" role="alert">
                {props.modelError}
              </p>
            ) : null}
          </div>
        ) : null}
      </fieldset>
      <div className="field">
        <label htmlFor="conversation-profile">Assistant profile</label>
        <select id="conversation-profile" value={choice.profileId} onChange={(e) => onChange({ ...choice, profileId: e.target.value })} aria-describedby="conversation-profile-hint">
          <option value="">None</option>
          {props.profiles?.map((p) => (
            <option key={p.profileId} value={p.profileId}>
              {p.name}
            </option>
          ))}
        </select>
        <p className="hint" id="conversation-profile-hint">
          {profile ? profile.description : 'A profile shapes how the agent plans and writes; its tools and limits stay the same.'}
        </p>
      </div>
    </div>
  );
}
