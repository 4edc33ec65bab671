import type { TestGateway } from './gateway.ts';

export interface TaskData {
  taskId: string;
  status: string;
  files: Array<{ fileUrl: string; fileType: string }>;
  output: Record<string, unknown> | null;
  errorMessage: string | null;
  createdTime: string;
}

/** Polls GET /task/status until the task is finished, failed or expired. */
export async function waitForTask(gw: Pick<TestGateway, 'api'>, key: string, taskId: string, timeoutMs = 60_000): Promise<TaskData> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await gw.api(key, 'GET', `/api/v1/task/status/${taskId}`);
    const data = (res.body as { data: TaskData }).data;
    if (['finished', 'failed', 'expired'].includes(data.status)) return data;
    if (Date.now() > deadline) throw new Error(`task ${taskId} still ${data.status}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
