import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { S3Config } from '../../src/config/config.types.ts';

interface S3rverOptions {
  address: string;
  port: number;
  silent: boolean;
  directory: string;
  configureBuckets: Array<{ name: string }>;
}

interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}

type S3rverConstructor = new (options: S3rverOptions) => S3rverInstance;

/** The fixed key pair @20minutes/s3rver accepts (it checks signatures, so the SDK must sign with it). */
const S3RVER_KEY = 'S3RVER';

export interface TestS3Server {
  config: S3Config;
  close(): Promise<void>;
}

/**
 * An in-process S3 (`@20minutes/s3rver`) on 127.0.0.1 with a temp directory and one bucket created
 * through its `configureBuckets` option. The package has no type declarations, so it is loaded through
 * createRequire and given the small shape used here.
 */
export async function startTestS3Server(bucket = 'switchboard-test'): Promise<TestS3Server> {
  const directory = mkdtempSync(join(tmpdir(), 'sb-s3-'));
  const require = createRequire(import.meta.url);
  const S3rver = require('@20minutes/s3rver') as S3rverConstructor;
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
  const address = await server.run();
  return {
    config: {
      endpoint: `http://127.0.0.1:${address.port}`,
      bucket,
      accessKeyId: S3RVER_KEY,
      secretAccessKey: S3RVER_KEY,
      region: 'us-east-1',
      publicUrl: undefined,
    },
    async close() {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
