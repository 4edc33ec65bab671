import { requestData } from './client.ts';
import type { StorageOperation } from './index.ts';

/**
 * Follows a storage operation (retain, asset import) until it ends: the completed operation, or an
 * Error with the failure's message. Gives up after about five minutes; the copy still finishes.
 */
export async function settleStorageOperation(operationId: string, intervalMs = 300): Promise<StorageOperation> {
  const deadline = Date.now() + 5 * 60_000;
  while (Date.now() < deadline) {
    const op = await requestData<StorageOperation>('GET', `/api/v1/agent/storage/operations/${encodeURIComponent(operationId)}`);
    if (op.status === 'completed') return op;
    if (op.status === 'failed') throw new Error(op.error?.message ?? 'The copy failed.');
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error('The copy is taking long; it will appear in Storage when it is done.');
}
