// Builds the installable package into dist/: the harness compiled to JavaScript (Node and
// Playwright will not load TypeScript from inside node_modules) with the files it reads at run
// time beside it, and the k6 bundles. Run by `npm run build` and by `prepare`, which npm runs
// before packing and when it installs kgate from a git URL.
import { copyFileSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { bundleScenario, K6_SCENARIOS } from '../load/k6-bundle.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');

/** The folders whose modules run when a user runs kgate (the CLI and everything it loads). */
export const RUNTIME_ROOTS = [
  'config',
  'page',
  'openapi',
  'http',
  'contracts',
  'load',
  'drift',
  'compare',
  'reference',
  'cli',
];
/** Modules in those folders that only the project's own tests, benches and docs use. */
const DEV_ONLY = [
  'openapi/check-generated.ts',
  'openapi/compile-validators.ts',
  'contracts/checks-table.ts',
  'contracts/fault-sweep.ts',
  'contracts/fault-sweep.spec.ts',
  'contracts/fault-table.ts',
  'contracts/secret-scan.ts',
  'reference/test-client.ts',
];
/**
 * Files read at run time through `new URL(..., import.meta.url)`, and the generated validators
 * module (JavaScript already), copied to the same place under dist/.
 */
export const RUNTIME_DATA = [
  'openapi/openapi.yaml',
  'openapi/generated/openapi.json',
  'openapi/generated/validators.js',
  'config/kgate.config.schema.json',
  'contracts/request-budget.json',
];

/** Every runtime module: `.ts` files of the runtime folders but tests, k6 scripts (bundled apart) and dev-only modules. */
function runtimeModules(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(join(root, dir)).flatMap((name) => {
      const path = join(dir, name);
      if (statSync(join(root, path)).isDirectory()) return path === join('load', 'k6') ? [] : walk(path);
      const module = name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.endsWith('.d.ts');
      return module && !DEV_ONLY.includes(path) ? [path] : [];
    });
  return [...RUNTIME_ROOTS.flatMap(walk), 'playwright.config.ts'];
}

rmSync(dist, { recursive: true, force: true });
// One output file per module, as in the sources: relative imports stay imports, renamed to .js,
// and packages stay external. Types are checked by `npm run check`, not here.
await build({
  entryPoints: runtimeModules().map((file) => join(root, file)),
  outdir: dist,
  outbase: root,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
  plugins: [
    {
      name: 'keep-modules',
      setup(b) {
        b.onResolve({ filter: /^\.\.?\// }, (args) =>
          args.kind === 'entry-point' ? undefined : { path: args.path.replace(/\.ts$/, '.js'), external: true },
        );
      },
    },
  ],
});
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
  `build: ${relative(root, dist)}/ written: ${runtimeModules().length} modules, ${RUNTIME_DATA.length} data files, k6 bundles of ${K6_SCENARIOS.join(', ')}`,
);
