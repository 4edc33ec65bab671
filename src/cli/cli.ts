import { ConfigError } from '../domain/config-error.ts';
import { loadConfig } from '../config/load-config.ts';
import { runAdminCommand } from './admin-commands.ts';
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
  keys create <userId> [--name N] print a new API key for the user (shown once)
  keys list <userId>
  keys revoke <keyId>
  credits add <userId> --amount-cents N --idempotency-key K [--note T]
  ledger show <userId> [--limit N]
  ledger verify                 check the books: balances, holds, agent run budgets and operations
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
  if (command === 'serve') return runServe(config);
  return runAdminCommand(command, rest, config, HELP);
}
