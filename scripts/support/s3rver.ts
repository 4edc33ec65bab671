/**
 * `@20minutes/s3rver`, an S3-compatible server in this process, with one bucket created; shared by the
 * tests' S3 (test/support/s3-server.ts) and scripts/local-s3.ts. It is a dev dependency, so nothing in
 * src/ may import this. The package has no type declarations, so it is loaded through createRequire
 * and given the small shape used here.
 */
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
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

/** The fixed key pair s3rver accepts (it checks signatures, so the SDK must sign with it). */
const S3RVER_KEY = 'S3RVER';

export interface S3rverStart {
  /** The interface to listen on (an IP address). */
  host: string;
  /** 0 for any free port. */
  port: number;
  /** Where the objects are kept. */
  directory: string;
  bucket: string;
}

export interface RunningS3rver {
  /** What a gateway needs to reach it (no public URL). */
  config: S3Config;
  close(): Promise<void>;
}

export async function startS3rver(start: S3rverStart): Promise<RunningS3rver> {
  const S3rver = createRequire(import.meta.url)('@20minutes/s3rver') as S3rverConstructor;
  const server = new S3rver({ address: start.host, port: start.port, silent: true, directory: start.directory, configureBuckets: [{ name: start.bucket }] });
  const address = await server.run();
  return {
    config: {
      endpoint: `http://${start.host}:${address.port}`,
      bucket: start.bucket,
      accessKeyId: S3RVER_KEY,
      secretAccessKey: S3RVER_KEY,
      region: 'us-east-1',
      publicUrl: undefined,
    },
    close: () => server.close(),
  };
}
