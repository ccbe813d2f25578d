#!/usr/bin/env node
// Entry point of the `kgate` command. The installed package runs its compiled dist/. A clone runs
// a build of its sources, made when a source changed since the last one (scripts/runtime-build.mjs:
// esbuild, under a second) and kept in node_modules/.cache/kgate/runtime/, so that neither the CLI
// nor Playwright's processes load TypeScript through a transpiling loader. KGATE_FROM_SOURCES=1
// runs the TypeScript sources themselves, through tsx (stack traces then name the sources).
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const sources = new URL('../cli/main.ts', import.meta.url);
const installed = !existsSync(sources);
// On Node 22 and later, V8's compiled code of every module the CLI loads is kept between runs
// (config/compile-cache.cjs), so it is turned on before anything else loads. On Node 20 nothing is
// kept.
const compileCache = createRequire(import.meta.url)(
  installed ? '../dist/config/compile-cache.cjs' : '../config/compile-cache.cjs',
);
if (compileCache.NATIVE) {
  const folder = compileCache.compileCacheFolder();
  if (compileCache.enableCompileCache(folder)) process.once('exit', () => compileCache.pruneNative(folder));
}
let main;
if (installed) {
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
