// Builds the installable package into dist/: the harness compiled to JavaScript (Node and
// Playwright will not load TypeScript from inside node_modules) with the files it reads at run
// time beside it, and the k6 bundles. Run by `npm run build` and by `prepare`, which npm runs
// before packing and when it installs kgate from a git URL. The compiling itself is shared with a
// clone's own builds (scripts/runtime-build.mjs).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleScenario, K6_SCENARIOS } from '../load/k6-bundle.ts';
import { compileRuntime, RUNTIME_DATA } from './runtime-build.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');

rmSync(dist, { recursive: true, force: true });
const modules = await compileRuntime(dist, { devOnly: false });
// The installed package has no bundler: `kgate k6 bundle` hands out the bundles made here.
mkdirSync(join(dist, 'load', 'k6-bundles'), { recursive: true });
for (const name of K6_SCENARIOS) {
  writeFileSync(join(dist, 'load', 'k6-bundles', `${name}.js`), await bundleScenario(name));
}
console.log(
  `build: ${relative(root, dist)}/ written: ${modules} modules, ${RUNTIME_DATA.length} data files, k6 bundles of ${K6_SCENARIOS.join(', ')}`,
);
