import { type FormEvent, useState } from 'react';
import { errorMessage, requestData } from '../../api/client.ts';
import type { MessageAccepted, WorkflowSummary } from '../../api/index.ts';
import { useAsync } from '../../components/common.tsx';

/**
 * Starts a built-in workflow: the form is generated from its input schema (text, whole numbers,
 * choices); only filled fields are sent, and a required one left empty is asked for by the run.
 */
export function WorkflowLauncher(props: { conversationId: string; disabled: boolean; onStarted: (runId: string | undefined) => void }) {
  const workflows = useAsync((signal) => requestData<WorkflowSummary[]>('GET', '/api/v1/agent/workflows', { signal }), []);
  const [chosen, setChosen] = useState('');
  const [values, setValues] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const workflow = workflows.data?.find((w) => w.workflowId === chosen);

  const start = async (event: FormEvent) => {
    event.preventDefault();
    if (!workflow) return;
    const input: Record<string, string | number> = {};
    for (const [name, field] of Object.entries(workflow.inputSchema.properties)) {
      const value = values[name]?.trim() ?? '';
      if (value === '') continue;
      input[name] = field.type === 'integer' ? Number(value) : value;
    }
    setBusy(true);
    setError(undefined);
    try {
      const accepted = await requestData<MessageAccepted>('POST', `/api/v1/agent/conversations/${encodeURIComponent(props.conversationId)}/messages`, {
        body: { clientMessageId: crypto.randomUUID(), content: [{ type: 'text', text: `Run the workflow ${workflow.name}` }], workflowId: workflow.workflowId, workflowVersion: workflow.version, workflowInput: input },
      });
      setValues({});
      props.onStarted(accepted.runId);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <details className="panel agent-workflows">
      <summary>Start a workflow</summary>
      <form onSubmit={start} data-testid="workflow-form">
        <div className="field">
          <label htmlFor="workflow-choice">Workflow</label>
          <select id="workflow-choice" value={chosen} onChange={(e) => { setChosen(e.target.value); setValues({}); }}>
            <option value="">Choose…</option>
            {(workflows.data ?? []).map((w) => (
              <option key={w.workflowId} value={w.workflowId}>
                {w.name} (v{w.version})
              </option>
            ))}
          </select>
        </div>
        {workflow ? <p className="small muted">{workflow.description}</p> : null}
        {workflow
          ? Object.entries(workflow.inputSchema.properties).map(([name, field]) => {
              const id = `workflow-${workflow.workflowId}-${name}`;
              const required = workflow.inputSchema.required.includes(name);
              const label = `${name}${required ? '' : ' (optional)'}`;
              return (
                <div className="field" key={name}>
                  <label htmlFor={id}>{label}</label>
                  {field.enum ? (
                    <select id={id} value={values[name] ?? ''} onChange={(e) => setValues({ ...values, [name]: e.target.value })}>
                      <option value="">—</option>
                      {field.enum.map((option) => (
                        <option key={option} value={option}>
                          {option}
                        </option>
                      ))}
                    </select>
                  ) : (
                    <input
                      id={id}
                      type={field.type === 'integer' ? 'number' : 'text'}
                      {...(field.minimum !== undefined ? { min: field.minimum } : {})}
                      {...(field.maximum !== undefined ? { max: field.maximum } : {})}
                      {...(field.maxLength !== undefined ? { maxLength: field.maxLength } : {})}
                      value={values[name] ?? ''}
                      onChange={(e) => setValues({ ...values, [name]: e.target.value })}
                      aria-describedby={`${id}-hint`}
                    />
                  )}
                  <p className="hint" id={`${id}-hint`}>
                    {field.description}
                    {required ? ' — asked for by the run if left empty.' : ''}
                  </p>
                </div>
              );
            })
          : null}
        <button type="submit" className="button button-primary" disabled={!workflow || busy || props.disabled}>
          Start workflow
        </button>
        {error ? (
          <div className="notice notice-error" role="alert">
            <strong>The workflow did not start: </strong>
            {errorMessage(error)}
          </div>
        ) : null}
      </form>
    </details>
  );
}
