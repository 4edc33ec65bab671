import { useState } from 'react';
import { ApiError, errorMessage, requestData } from '../api/client.ts';
import type { AcceptedOperation } from '../api/index.ts';
import { settleStorageOperation } from '../api/storage-operations.ts';
import { Link } from '../router.tsx';

/** "Keep in storage": copies one file of a generation into paid storage and follows the copy to its end. */
export function KeepButton(props: { generationId: string; outputIndex: number }) {
  const [state, setState] = useState<{ busy?: boolean; done?: boolean; error?: unknown }>({});
  const keep = async () => {
    setState({ busy: true });
    try {
      const accepted = await requestData<AcceptedOperation>('POST', '/api/v1/agent/storage/retain', { body: { generationId: props.generationId, outputIndex: props.outputIndex } });
      await settleStorageOperation(accepted.operationId);
      setState({ done: true });
    } catch (e) {
      setState({ error: e });
    }
  };
  const needsPlan = state.error instanceof ApiError && (state.error.code === 'storage_plan_required' || state.error.code === 'storage_quota_exceeded');
  return (
    <div className="keep">
      {state.done ? (
        <p className="notice notice-success" role="status">
          Kept in <Link to="/storage">Storage</Link>, beyond the 3 days.
        </p>
      ) : (
        <button type="button" className="button button-small" disabled={state.busy} onClick={keep} aria-label={`Keep file ${props.outputIndex + 1} in storage`}>
          {state.busy ? 'Keeping…' : 'Keep in storage'}
        </button>
      )}
      {state.error ? (
        <p className="notice notice-error" role="alert">
          {errorMessage(state.error)} {needsPlan ? <Link to="/storage">See storage plans</Link> : null}
        </p>
      ) : null}
    </div>
  );
}
