/**
 * An S3-compatible server for trying scale-out on one machine without MinIO (docs/deploy.md, "Try it
 * on one machine without containers"): the in-process server the tests use (`@20minutes/s3rver`, a
 * dev dependency), on a fixed port, keeping its objects in a directory, with the bucket created.
 * Not for production: it keeps everything on one disk and knows one fixed key pair.
 *
 *   node scripts/local-s3.ts [--port 9000] [--dir ./s3-data] [--bucket switchboard]
 *
 * Prints the S3_* settings the gateway processes need, then serves until SIGINT or SIGTERM.
 */
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

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

/** The one key pair s3rver accepts (it checks signatures). */
const S3RVER_KEY = 'S3RVER';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '9000' },
    dir: { type: 'string', default: './s3-data' },
    bucket: { type: 'string', default: 'switchboard' },
    host: { type: 'string', default: '127.0.0.1' },
  },
});

const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  process.stderr.write(`--port must be a port number (0 to 65535), got ${values.port}\n`);
  process.exit(2);
}
if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(values.bucket)) {
  process.stderr.write(`--bucket must be an S3 bucket name (3 to 63 of a-z, 0-9, dot, hyphen), got ${values.bucket}\n`);
  process.exit(2);
}
const directory = resolve(values.dir);
mkdirSync(directory, { recursive: true });

const S3rver = createRequire(import.meta.url)('@20minutes/s3rver') as S3rverConstructor;
const server = new S3rver({ address: values.host, port, silent: true, directory, configureBuckets: [{ name: values.bucket }] });
const address = await server.run();

process.stdout.write(
  `S3 server on http://${values.host}:${address.port}, objects in ${directory}\n` +
    `S3_ENDPOINT=http://${values.host}:${address.port}\nS3_BUCKET=${values.bucket}\n` +
    `S3_ACCESS_KEY_ID=${S3RVER_KEY}\nS3_SECRET_ACCESS_KEY=${S3RVER_KEY}\nS3_REGION=us-east-1\n`,
);

const stop = () => {
  void server.close().then(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
