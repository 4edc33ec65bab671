/**
 * Runs `@portkey-ai/gateway` (its published Node build) on 127.0.0.1 for bench/chat:
 * `node bench/chat/portkey-server.ts <port>`. The build starts its own `@hono/node-server` `serve`
 * call without a hostname (all interfaces) and with Hono's global Response override, which breaks its
 * streaming (DESIGN.md, "Verified on these machines"); a load hook rewrites that one call to add
 * `hostname: '127.0.0.1'` and `overrideGlobalObjects: false`. Nothing on disk is modified.
 */
import { registerHooks } from 'node:module';

const port = Number(process.argv[2] ?? 8787);
const CALL = 'e({fetch:Lu.fetch,port:Ku})';

registerHooks({
  load(url, context, nextLoad) {
    const loaded = nextLoad(url, context);
    if (!url.endsWith('/@portkey-ai/gateway/build/start-server.js')) return loaded;
    const source = String(loaded.source);
    if (!source.includes(CALL)) throw new Error('the Portkey build changed: its serve call was not found');
    return { ...loaded, source: source.replace(CALL, "e({fetch:Lu.fetch,port:Ku,hostname:'127.0.0.1',overrideGlobalObjects:false})") };
  },
});

process.argv.push(`--port=${port}`, '--headless');
// A specifier in a variable: the package ships no types, and none are needed to start it.
const entry: string = '@portkey-ai/gateway/build/start-server.js';
await import(entry);
