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
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startS3rver } from './support/s3rver.ts';

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

const server = await startS3rver({ host: values.host, port, directory, bucket: values.bucket });
const { config } = server;

process.stdout.write(
  `S3 server on ${config.endpoint}, objects in ${directory}\n` +
    `S3_ENDPOINT=${config.endpoint}\nS3_BUCKET=${config.bucket}\n` +
    `S3_ACCESS_KEY_ID=${config.accessKeyId}\nS3_SECRET_ACCESS_KEY=${config.secretAccessKey}\nS3_REGION=${config.region}\n`,
);

const stop = () => {
  void server.close().then(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
