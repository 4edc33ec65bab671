#!/usr/bin/env node
// The CLI entry: npm puts Node 24 first on PATH for npx and npm scripts, which runs TypeScript directly.
import '../src/main.ts';
