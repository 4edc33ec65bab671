import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startS3rver } from '../../scripts/support/s3rver.ts';
import type { S3Config } from '../../src/config/config.types.ts';

export interface TestS3Server {
  config: S3Config;
  close(): Promise<void>;
}

/** An in-process S3 on 127.0.0.1, a free port, with its objects in a temp directory removed on close. */
export async function startTestS3Server(bucket = 'switchboard-test'): Promise<TestS3Server> {
  const directory = mkdtempSync(join(tmpdir(), 'sb-s3-'));
  const server = await startS3rver({ host: '127.0.0.1', port: 0, directory, bucket });
  return {
    config: server.config,
    async close() {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
