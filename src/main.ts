import { runCli } from './cli/cli.ts';

// The composition root's entry: `node src/main.ts <command>`, also reached through bin/switchboard.mjs.
// Exit explicitly: a finished command must not linger on an idle connection pool.
process.exit(await runCli(process.argv.slice(2), process.env));
