import type { TaskRow, TaskStatusRow } from '../../ports/task-store.port.ts';
import type { BlobStore } from '../../ports/blob-store.port.ts';
import type { TaskFile } from './result-store.ts';

export interface TaskStatusData {
  taskId: string;
  status: TaskRow['status'];
  files: Array<{ fileUrl: string; fileType: TaskFile['fileType'] }>;
  output: Record<string, unknown> | null;
  createdTime: string;
  errorMessage: string | null;
}

/**
 * The task as GET /task/status shows it. The webhook body and the dashboard use this same function,
 * so they can never disagree with the status endpoint.
 */
export function presentTaskStatus(task: TaskStatusRow, blobs: BlobStore): TaskStatusData {
  const files = task.status === 'finished' && task.files_json ? (JSON.parse(task.files_json) as TaskFile[]) : [];
  const output = task.output_json ? (JSON.parse(task.output_json) as Record<string, unknown>) : null;
  return {
    taskId: task.id,
    status: task.status,
    files: files.map((f) => ({ fileUrl: blobs.publicUrl(f.blobKey), fileType: f.fileType })),
    output: output ? withCoverUrls(output, blobs, task.status === 'finished') : null,
    createdTime: new Date(task.created_at).toISOString(),
    errorMessage: task.error_message,
  };
}

function withCoverUrls(output: Record<string, unknown>, blobs: BlobStore, available: boolean): Record<string, unknown> {
  if (!Array.isArray(output.tracks)) return output;
  return {
    ...output,
    tracks: output.tracks.map((track: unknown) => {
      if (track === null || typeof track !== 'object') return track;
      const urls = (track as { coverImageUrls?: unknown }).coverImageUrls;
      if (!Array.isArray(urls)) return track;
      return {
        ...track,
        coverImageUrls: available
          ? urls.map((u) => (typeof u === 'string' && u.startsWith('blob:') ? blobs.publicUrl(u.slice(5)) : u))
          : [],
      };
    }),
  };
}
