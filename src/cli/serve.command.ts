import type { Config } from '../config/config.types.ts';
import { startGateway } from '../gateway.ts';
import { recordRunningGateway } from './running-gateway.ts';

/**
 * The longest a SIGTERM'd `serve` takes before it exits on its own (drained or not). Process
 * supervisors must wait longer than this before they SIGKILL (the deploy files' stop timeouts).
 */
export const SHUTDOWN_BOUND_MS = 30_000;

/** Runs the gateway until SIGINT/SIGTERM, then drains: in-flight requests and jobs finish first. */
export async function runServe(config: Config): Promise<number> {
  const gateway = await startGateway(config, {
    onDemoKey: (key, signInUrl) => {
      // Printed once, to the terminal only (never in a log line): neither is stored anywhere in clear.
      process.stdout.write(
        `\n  Switchboard demo user created with USD 10.00.\n  API key (shown once, keep it): ${key}\n\n` +
          `  Try: curl -H "Authorization: Bearer ${key}" http://127.0.0.1:${config.port}/api/v1/user/me\n` +
          (signInUrl ? `  Dashboard (one-time sign-in link, valid 24 h): ${signInUrl}\n` : '') +
          '\n',
      );
    },
  });
  const { logger } = gateway.services;
  // A restore must not run beside a live gateway: it looks for this (embedded store only).
  const forgetPid = config.databaseUrl ? undefined : await recordRunningGateway(config.dataDir);
  // A promise nobody awaited failing (say, a timer's query while the database restarts) is a bug to
  // log, not a reason to take every tenant's requests down with the process.
  process.on('unhandledRejection', (reason) => {
    gateway.services.metrics.unhandledRejections.inc();
    logger.error({ err: reason }, 'unhandled promise rejection');
  });
  logger.info({ url: gateway.url, role: config.role, store: gateway.services.database.dialect }, 'switchboard started');

  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      logger.info({ signal }, 'shutting down');
      const force = setTimeout(() => {
        logger.error(`shutdown took longer than ${SHUTDOWN_BOUND_MS / 1000} s; exiting`);
        resolve(1);
      }, SHUTDOWN_BOUND_MS);
      force.unref();
      gateway
        .close()
        .then(async () => {
          await forgetPid?.();
          clearTimeout(force);
          logger.info('stopped');
          // Logs are written asynchronously in batches: flush them before the process exits.
          logger.flush(() => resolve(0));
        })
        .catch((error: unknown) => {
          logger.error({ err: error }, 'shutdown failed');
          resolve(1);
        });
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
}
