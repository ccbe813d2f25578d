// Builds the installable package into dist/: the harness compiled to JavaScript (Node and
// Playwright will not load TypeScript from inside node_modules) with the files it reads at run
// time beside it. Run by `npm run build` and by `prepack`, so `npm pack` always ships a fresh build.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleScenario, K6_SCENARIOS } from '../load/k6-bundle.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');

/** Files read at run time through `new URL(..., import.meta.url)`, copied to the same place under dist/. */
export const RUNTIME_DATA = [
  'openapi/openapi.yaml',
  'config/kgate.config.schema.json',
  'contracts/request-budget.json',
];

rmSync(dist, { recursive: true, force: true });
// Types are checked by `npm run check`; the build only transpiles, rewriting `./x.ts` imports to `./x.js`.
const tsc = spawnSync(
  process.execPath,
  [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.build.json'), '--noCheck'],
  { stdio: 'inherit' },
);
if (tsc.status !== 0) process.exit(tsc.status ?? 1);
for (const file of RUNTIME_DATA) {
  mkdirSync(dirname(join(dist, file)), { recursive: true });
  copyFileSync(join(root, file), join(dist, file));
}
// The installed package has no bundler: `kgate k6 bundle` hands out the bundles made here.
mkdirSync(join(dist, 'load', 'k6-bundles'), { recursive: true });
for (const name of K6_SCENARIOS) {
  writeFileSync(join(dist, 'load', 'k6-bundles', `${name}.js`), await bundleScenario(name));
}
console.log(
  `build: dist/ written (${RUNTIME_DATA.length} data files beside the compiled modules, k6 bundles of ${K6_SCENARIOS.join(', ')})`,
);
