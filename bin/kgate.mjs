#!/usr/bin/env node
// Entry point of the `kgate` command. The installed package runs its compiled dist/. A clone runs
// a build of its sources, made when a source changed since the last one (scripts/runtime-build.mjs:
// esbuild, under a second) and kept in node_modules/.cache/kgate/runtime/, so that neither the CLI
// nor Playwright's processes load TypeScript through a transpiling loader. KGATE_FROM_SOURCES=1
// runs the TypeScript sources themselves, through tsx (stack traces then name the sources).
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const sources = new URL('../cli/main.ts', import.meta.url);
let main;
if (!existsSync(sources)) {
  ({ main } = await import('../dist/cli/main.js'));
} else if (process.env.KGATE_FROM_SOURCES === '1') {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import(sources.href));
} else {
  const { cloneBuild } = await import('../scripts/runtime-build.mjs');
  const build = await cloneBuild();
  ({ main } = await import(pathToFileURL(`${build}/cli/main.js`).href));
}
process.exitCode = await main(process.argv.slice(2));
