import { runCli } from './cli/cli.ts';

// What the process creates without a mode of its own (SQLite's temporary files, a render's scratch
// files) is for its user only, whatever umask it was started with: the store holds every customer's
// webhook signing secret (the named files are 0600 and directories 0700 anyway: private-files.ts).
process.umask(0o077);

// The composition root's entry: `node src/main.ts <command>`, also reached through bin/switchboard.mjs.
// Exit explicitly: a finished command must not linger on an idle connection pool.
process.exit(await runCli(process.argv.slice(2), process.env));
