import type { TaskStatusRow } from '../../ports/task-store.port.ts';
import { isTerminal } from '../../domain/tasks/task-status.ts';
import type { TaskStatusData } from './task-presenter.ts';

interface Entry {
  userId: string;
  data: TaskStatusData;
  /** After this instant the entry is not used (a finished task's files expire then). */
  validUntil: number;
}

const MAX_ENTRIES = 20_000;

/**
 * The status responses of ended tasks, which clients poll and which cannot change: a terminal status
 * is final (every transition is a compare-and-set from a non-terminal one), except `finished →
 * expired`, which happens when the files' retention ends — so a finished task's entry is used only
 * until its `expires_at`. Tasks still running are never cached. One map per process, oldest entries
 * dropped first.
 */
export class TaskStatusCache {
  private readonly entries = new Map<string, Entry>();

  get(userId: string, taskId: string, now: number = Date.now()): TaskStatusData | undefined {
    const entry = this.entries.get(taskId);
    if (!entry) return undefined;
    if (entry.userId !== userId) return undefined;
    if (entry.validUntil <= now) {
      this.entries.delete(taskId);
      return undefined;
    }
    return entry.data;
  }

  /** Drops a task (this process saw it change, e.g. expire). */
  forget(taskId: string): void {
    this.entries.delete(taskId);
  }

  remember(userId: string, row: TaskStatusRow, data: TaskStatusData): void {
    if (!isTerminal(row.status)) return;
    const validUntil = row.status === 'finished' ? (row.expires_at ?? 0) : Number.POSITIVE_INFINITY;
    if (this.entries.size >= MAX_ENTRIES) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(row.id, { userId, data, validUntil });
  }
}
