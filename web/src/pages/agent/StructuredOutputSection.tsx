import { type RefObject, useMemo, useState } from 'react';
import { ApiError } from '../../api/client.ts';
import { describedBy } from '../../components/common.tsx';
import { checkSchemaText, MAX_SCHEMA_TEXT, type SchemaTextCheck } from './output-schema-text.ts';

export type StructuredOutputMode = 'auto' | 'extract';

export interface StructuredOutput {
  text: string;
  setText: (text: string) => void;
  mode: StructuredOutputMode;
  setMode: (mode: StructuredOutputMode) => void;
  check: SchemaTextCheck;
  /** The server's refusal of the schema, in words; cleared when the schema changes. */
  refusal: string | undefined;
  setRefusal: (words: string | undefined) => void;
  /** The message fields for the schema, undefined when none is asked for. */
  fields: () => { outputSchema: Record<string, unknown>; structuredOutputMode: StructuredOutputMode } | undefined;
}

/** The server refused the message for its result schema (or its mode): shown in the section, not as a general error. */
export function isSchemaRefusal(error: unknown): error is ApiError {
  return error instanceof ApiError && (error.code === 'invalid_output_schema' || (error.param ?? '').startsWith('structuredOutputMode'));
}

export function useStructuredOutput(): StructuredOutput {
  const [text, setTextState] = useState('');
  const [mode, setMode] = useState<StructuredOutputMode>('auto');
  const [refusal, setRefusal] = useState<string | undefined>();
  const check = useMemo(() => checkSchemaText(text), [text]);
  const setText = (next: string) => {
    setTextState(next);
    setRefusal(undefined);
  };
  const fields = () => (check.kind === 'ok' ? { outputSchema: check.schema, structuredOutputMode: mode } : undefined);
  return { text, setText, mode, setMode, check, refusal, setRefusal, fields };
}

/**
 * The composer's optional "Structured output": a JSON schema the run's result must fit, checked as it
 * is typed (a parse error shows in place, and nothing is sent while it stands), and how the result is
 * made. The server's refusal of a schema shows here too, in words.
 */
export function StructuredOutputSection(props: { output: StructuredOutput; idPrefix: string; textareaRef: RefObject<HTMLTextAreaElement | null> }) {
  const { output, idPrefix } = props;
  const id = `${idPrefix}-schema`;
  const error = output.check.kind === 'invalid' ? output.check.message : output.refusal;
  const hint = `A JSON schema of the result you want back (a closed object: every field required, no extra fields). Leave it empty for none. At most ${MAX_SCHEMA_TEXT.toLocaleString('en-US')} characters.`;
  return (
    <details className="agent-structured-output" data-testid="structured-output">
      <summary>Structured output{output.check.kind === 'ok' ? ' (on)' : ''}</summary>
      <div className="field">
        <label htmlFor={id}>Result schema (JSON)</label>
        <textarea
          id={id}
          ref={props.textareaRef}
          rows={6}
          spellCheck={false}
          className="agent-schema-input"
          value={output.text}
          onChange={(e) => output.setText(e.target.value)}
          aria-invalid={error ? true : undefined}
          aria-describedby={describedBy(id, hint, error)}
          placeholder={'{"type": "object", "properties": {"summary": {"type": "string"}}, "required": ["summary"], "additionalProperties": false}'}
        />
        <p className="hint" id={`${id}-hint`}>
          {hint}
        </p>
        {error ? (
          <p className="field-error" id={`${id}-error`} role="alert" data-testid="schema-error">
            {error}
          </p>
        ) : null}
      </div>
      <fieldset className="agent-fieldset">
        <legend>How the result is made</legend>
        <label className="field-checkbox">
          <input type="radio" name={`${idPrefix}-structured-mode`} checked={output.mode === 'auto'} onChange={() => output.setMode('auto')} /> Automatic: known fields filled without a model call when possible
        </label>
        <label className="field-checkbox">
          <input type="radio" name={`${idPrefix}-structured-mode`} checked={output.mode === 'extract'} onChange={() => output.setMode('extract')} /> Always extract with a model (billed)
        </label>
      </fieldset>
    </details>
  );
}
