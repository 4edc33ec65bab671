import { ConfigError } from '../domain/config-error.ts';
import { loadConfig } from '../config/load-config.ts';
import { runAdminCommand } from './admin-commands.ts';
import { runBackupCommand } from './backup-commands.ts';
import { parseArgs, UsageError } from './cli-args.ts';
import { runServe } from './serve.command.ts';

const HELP = `switchboard <command>

  serve                         start the gateway (ROLE=api|worker|all, default all)
  migrate                       apply database migrations and exit
  users create [--email E] [--balance-cents N] [--admin]
  users promote <userId|email>  make a user an admin (dashboard admin pages; admin API by session)
  users demote <userId|email>
  users sign-in-link <userId|email> [--hours N]  print a one-time dashboard sign-in link (default 24 h)
  users list
  users show <userId>
  keys create <userId> [--name N] [--manage-keys]
                                 print a new API key for the user (shown once); --manage-keys:
                                 a management key (it may manage the user's keys, within its limits)
  keys list <userId>
  keys revoke <keyId>
  credits add <userId> --amount-cents N --idempotency-key K [--note T]
  ledger show <userId> [--limit N]
  ledger verify                 check the books: balances, holds, agent run budgets and operations
  backup DIR                    online copy of the embedded store (SQLite by VACUUM INTO, local files) into a new DIR
  restore DIR [--force]         put a backup in place of a stopped gateway's store (the old one is moved aside)
  providers                     configured providers and their routes
  agent verify-routes           probe every text route for tool calling, image input and JSON schemas

Configuration comes from the environment (PORT, DATA_DIR, DATABASE_URL, REDIS_URL, S3_*, ADMIN_TOKEN,
SWITCHBOARD_CONFIG, …); see README.md.`;

export async function runCli(argv: string[], env: Record<string, string | undefined>): Promise<number> {
  const [command = 'serve', ...rest] = argv;
  if (command === 'help' || command === '--help' || command === '-h') {
    console.log(HELP);
    return 0;
  }
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      return 2;
    }
    throw error;
  }
  if (command === 'serve') {
    try {
      return await runServe(config);
    } catch (error) {
      // A start the configuration cannot make (a full DATA_DIR) is a sentence, not a stack trace.
      if (!(error instanceof ConfigError)) throw error;
      console.error(error.message);
      return 2;
    }
  }
  if (command === 'backup' || command === 'restore') {
    const args = parseArgs(rest);
    try {
      return await runBackupCommand(command, args.positional[0], args.options.get('force') === 'true', config);
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      console.error(`${error.message}\n\n${HELP}`);
      return 2;
    }
  }
  return runAdminCommand(command, rest, config, HELP);
}
