#!/usr/bin/env node
// Entry point of the `kgate` command. In a clone it runs the TypeScript sources through tsx (a dev
// dependency); the installed package has no sources, only the compiled dist/, which needs nothing else.
import { existsSync } from 'node:fs';

const sources = new URL('../cli/main.ts', import.meta.url);
let main;
if (existsSync(sources)) {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import(sources.href));
} else {
  ({ main } = await import('../dist/cli/main.js'));
}
process.exitCode = await main(process.argv.slice(2));
