// Compiles kgate's runtime modules to JavaScript, one output file per module (esbuild): for the
// package (`npm run build`, into dist/) and for a clone, which runs from a build kept in
// node_modules/.cache/kgate/runtime/ and made anew whenever a source changed (`bin/kgate.mjs`).
// Compiled code loads without a transpiling loader: no tsx in the CLI, and Playwright's runner and
// workers import the suite as plain ES modules, without Playwright's loader thread
// (run/README.md, "Compiled code"). Plain JavaScript, because `bin/kgate.mjs` needs it
// before any TypeScript can load.
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The clone's root: where the sources are. Every function takes another, for the tests. */
const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The folders whose modules run when a user runs kgate (the CLI and everything it loads). */
export const RUNTIME_ROOTS = [
  'config',
  'page',
  'openapi',
  'http',
  'contracts',
  'reporting',
  'run',
  'proof',
  'load',
  'drift',
  'compare',
  'reference',
  'cli',
];
/**
 * Modules in those folders that only the project's own tests, benches and docs use: not in the
 * package. A name ending in `/` is a whole folder (the self-proof).
 */
export const DEV_ONLY = [
  'openapi/check-generated.ts',
  'openapi/compile-validators.ts',
  'proof/',
  'reference/test-client.ts',
];

/** True when a module is only the project's own (DEV_ONLY). @param {string} path */
export function devOnly(path) {
  return DEV_ONLY.some((entry) => (entry.endsWith('/') ? path.startsWith(entry) : path === entry));
}
/**
 * Files read at run time through `new URL(..., import.meta.url)`, the generated validators module
 * (JavaScript already) and the compile cache (JavaScript already: the CLI and the processes it
 * starts load it before anything else), copied to the same place in the build.
 */
export const RUNTIME_DATA = [
  'openapi/openapi.yaml',
  'openapi/generated/openapi.json',
  'openapi/generated/validators.js',
  'config/kgate.config.schema.json',
  'reporting/envelope.schema.json',
  'config/compile-cache.cjs',
  'config/compile-cache-preload.cjs',
  'run/request-budget.json',
  'run/revealing.json',
];

/**
 * Every file under the runtime folders, relative to the root (k6 scripts are bundled apart).
 * @param {string} root
 */
function runtimeFiles(root) {
  /** @param {string} dir @returns {string[]} */
  const walk = (dir) =>
    readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return path === join('load', 'k6') || entry.name === 'node_modules' ? [] : walk(path);
      return [path];
    });
  return [...RUNTIME_ROOTS.flatMap(walk), 'playwright.config.ts'];
}

/**
 * The runtime modules: `.ts` files of the runtime folders but tests and declarations; the
 * dev-only ones unless `devOnly` (a clone's build has them: the fault sweep runs from it).
 * @param {{ devOnly: boolean, root?: string }} options
 */
export function runtimeModules(options) {
  return runtimeFiles(options.root ?? ROOT).filter(
    (path) =>
      path.endsWith('.ts') &&
      !path.endsWith('.test.ts') &&
      !path.endsWith('.d.ts') &&
      (options.devOnly || !devOnly(path)),
  );
}

/**
 * Compiles the runtime modules into `out` and copies the data files beside them.
 * @param {string} out
 * @param {{ devOnly: boolean, root?: string }} options
 * @returns {Promise<number>} the number of modules
 */
export async function compileRuntime(out, options) {
  const root = options.root ?? ROOT;
  const { build } = await import('esbuild');
  const modules = runtimeModules(options);
  // One output file per module, as in the sources: relative imports stay imports, renamed to .js,
  // and packages stay external. Types are checked by `npm run check`, not here.
  await build({
    entryPoints: modules.map((file) => join(root, file)),
    outdir: out,
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
    mkdirSync(dirname(join(out, file)), { recursive: true });
    copyFileSync(join(root, file), join(out, file));
  }
  return modules.length;
}

/** Where a clone keeps its builds: one folder per state of the sources. */
export const CLONE_BUILDS = join(ROOT, 'node_modules', '.cache', 'kgate', 'runtime');

/**
 * The state of the sources a build was made from: the path, size and time of change of every
 * module and data file it compiles or copies, and of the package's manifest (what `make` would
 * compare, without reading the files). Tests and documents beside them do not count.
 * @param {string} [root]
 */
export function sourcesKey(root = ROOT) {
  const hash = createHash('sha1');
  for (const path of [...runtimeModules({ devOnly: true, root }), ...RUNTIME_DATA, 'package.json']) {
    const stat = statSync(join(root, path));
    hash.update(`${path}\0${stat.size}\0${stat.mtimeMs}\n`);
  }
  return hash.digest('hex').slice(0, 16);
}

/**
 * The folder of a clone's build of its current sources, made first if there is none. Processes
 * starting together each build into a folder of their own and rename it into place; the first
 * rename wins and the others drop theirs, so a run never reads a half-written build. Builds of
 * earlier sources, and what a stopped build left, are removed an hour after they were made (a
 * run may still be reading one).
 * @param {{ root?: string, builds?: string }} [where] the sources and the builds' folder
 * @returns {Promise<string>}
 */
export async function cloneBuild({ root = ROOT, builds = CLONE_BUILDS } = {}) {
  const key = sourcesKey(root);
  const folder = join(builds, key);
  if (existsSync(join(folder, 'package.json'))) return folder;
  // Unique per process and call: two builds in one process (the tests) never share a folder.
  const partial = join(builds, `.${key}.${process.pid}.${++partialBuilds}`);
  rmSync(partial, { recursive: true, force: true });
  await compileRuntime(partial, { devOnly: true, root });
  // What the build makes from the sources at run time (the k6 bundles) it makes from these.
  writeFileSync(join(partial, 'sources.json'), `${JSON.stringify({ root })}\n`);
  // Written last: a build with its manifest is whole. run.json reads the version from it.
  copyFileSync(join(root, 'package.json'), join(partial, 'package.json'));
  try {
    renameSync(partial, folder);
  } catch {
    // Another process put the same build in place first.
    rmSync(partial, { recursive: true, force: true });
  }
  pruneBuilds(builds, key);
  return folder;
}

let partialBuilds = 0;

/** @param {string} builds @param {string} current */
function pruneBuilds(builds, current) {
  const hourAgo = Date.now() - 60 * 60 * 1000;
  for (const name of readdirSync(builds)) {
    const path = join(builds, name);
    // Folders named with a dot are builds in progress, or left by a process that was stopped.
    if (name === current) continue;
    try {
      if (statSync(path).mtimeMs < hourAgo) rmSync(path, { recursive: true, force: true });
    } catch {
      // Removed by another process meanwhile.
    }
  }
}
