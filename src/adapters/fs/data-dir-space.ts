import { statfs } from 'node:fs/promises';
import { ConfigError } from '../../domain/config-error.ts';

/**
 * Below this much free space under DATA_DIR the embedded store counts as full: the gateway refuses
 * to start, and readiness answers 503. SQLite needs room for its WAL and a checkpoint, a result file
 * can be megabytes; a start that dies half-way through its migrations helps nobody.
 */
export const MIN_FREE_BYTES = 8 * 1024 * 1024;

/** Bytes an unprivileged process may still write on the file system that holds `dir`. */
export async function freeBytes(dir: string): Promise<number> {
  const stats = await statfs(dir);
  return stats.bavail * stats.bsize;
}

/** 1536 → "1.5 KiB": free space as an operator reads it. */
export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} bytes` : `${value.toFixed(1)} ${units[unit]}`;
}

/** The sentence a start on a full disk stops with: which directory, how much is free, what to do. */
export function dataDirFullError(dataDir: string, free: number): ConfigError {
  return new ConfigError(
    'DATA_DIR',
    `${dataDir} is on a full disk: ${formatBytes(free)} free, and the gateway needs at least ${formatBytes(MIN_FREE_BYTES)} to start; free space on that disk or point DATA_DIR at a larger one`,
  );
}

/** Refuses a start with too little room under DATA_DIR (the directory exists). */
export async function assertRoomToStart(dataDir: string): Promise<void> {
  const free = await freeBytes(dataDir);
  if (free < MIN_FREE_BYTES) throw dataDirFullError(dataDir, free);
}
