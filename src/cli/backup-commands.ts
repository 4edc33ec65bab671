import { resolve } from 'node:path';
import { BackupError, backupEmbedded, restoreEmbedded } from '../adapters/backup/embedded-backup.ts';
import { listMigrations } from '../adapters/db/migrate.ts';
import type { Config } from '../config/config.types.ts';
import { UsageError } from './cli-args.ts';
import { runningGatewayPid } from './running-gateway.ts';

/**
 * `backup DIR` and `restore DIR [--force]` for the embedded store (SQLite and local files). Scale-out
 * stores have their own tools (pg_dump or a managed database's snapshots; the bucket's versioning or
 * replication), named in the refusal.
 */
export async function runBackupCommand(command: 'backup' | 'restore', target: string | undefined, force: boolean, config: Config): Promise<number> {
  if (!target) throw new UsageError(`${command} needs a directory: switchboard ${command} DIR`);
  if (config.databaseUrl) {
    console.error(`${command} works on the embedded store only; with DATABASE_URL use pg_dump / pg_restore (and the bucket's own versioning or replication for S3 files): see docs/deploy.md`);
    return 1;
  }
  const dir = resolve(target);
  try {
    if (command === 'backup') {
      const manifest = await backupEmbedded(config.dataDir, dir, !config.s3);
      console.log(JSON.stringify({ backup: dir, ...manifest }, null, 2));
      return 0;
    }
    const pid = await runningGatewayPid(config.dataDir);
    if (pid !== undefined && !force) {
      console.error(`a gateway (pid ${pid}) is running on ${config.dataDir}: stop it first (or pass --force if that process is not a gateway)`);
      return 1;
    }
    const newest = Math.max(...(await listMigrations('sqlite')).map((m) => m.version));
    const { manifest, movedAside } = await restoreEmbedded(dir, config.dataDir, newest);
    console.log(JSON.stringify({ restored: dir, dataDir: config.dataDir, movedAside, createdAt: manifest.createdAt, schemaVersion: manifest.schemaVersion, files: manifest.files }, null, 2));
    return 0;
  } catch (error) {
    if (error instanceof BackupError) {
      console.error(error.message);
      return 1;
    }
    throw error;
  }
}
