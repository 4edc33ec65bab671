import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PRIVATE_FILE_MODE } from '../adapters/fs/private-files.ts';

/**
 * `serve` keeps its process id in the data directory while it runs, so that commands that must not
 * run beside it (a restore) can tell. A pid left by a crash names a dead process (or, rarely, another
 * one): `restore` then asks for --force.
 */
const PID_FILE = 'switchboard.pid';

export async function recordRunningGateway(dataDir: string): Promise<() => Promise<void>> {
  const file = join(dataDir, PID_FILE);
  await writeFile(file, `${process.pid}\n`, { mode: PRIVATE_FILE_MODE });
  return () => rm(file, { force: true });
}

/** The pid of a gateway that looks alive on this data directory, or undefined. */
export async function runningGatewayPid(dataDir: string): Promise<number | undefined> {
  const text = await readFile(join(dataDir, PID_FILE), 'utf8').catch(() => '');
  const pid = Number(text.trim());
  if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid) return undefined;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (error) {
    // EPERM: the process exists but belongs to another user; it is still a running process.
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? pid : undefined;
  }
}
