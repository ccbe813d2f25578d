import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { homedir, tmpdir } from 'node:os';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const PRELOAD = fileURLToPath(new URL('./compile-cache-preload.cjs', import.meta.url));
const cache = createRequire(import.meta.url)('./compile-cache.cjs') as {
  NATIVE: boolean;
  compileCacheFolder: (env?: NodeJS.ProcessEnv, native?: boolean) => string | undefined;
  nativeFolder: (folder: string) => string;
  pruneNative: (folder: string, now?: number) => void;
  cacheable: (content: string, filename: string) => boolean;
};
/** The Node 20 hook's tests: on Node 22 and later Node keeps compiled code itself and the hook is never installed. */
const HOOK_ONLY = cache.NATIVE ? 'Node 20 only: on Node 22 and later Node keeps compiled code itself' : false;
/** Node's own cache's tests. */
const NATIVE_ONLY = cache.NATIVE ? false : 'Node 22 and later: Node 20 has no module.enableCompileCache';
const root = mkdtempSync(join(tmpdir(), 'kgate-compile-cache-'));
after(() => rmSync(root, { recursive: true, force: true }));

function write(path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

/** Runs main.cjs of the tree with the preload, as Playwright's processes run; returns stdout. */
function run(folder: string | undefined): string {
  const result = spawnSync(process.execPath, ['--require', PRELOAD, join(root, 'main.cjs')], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, KGATE_COMPILE_CACHE: folder ?? '' },
  });
  assert.equal(result.status, 0, result.stderr);
  return result.stdout;
}

/** The cache entries and their times of change. */
function entries(folder: string): Map<string, number> {
  const dirs = readdirSync(folder);
  assert.equal(dirs.length, 1, 'one folder per Node version and platform');
  const dir = join(folder, dirs[0]!);
  return new Map(readdirSync(dir).map((name) => [name, statSync(join(dir, name)).mtimeMs]));
}

// A package, a package with a #! line, one that imports dynamically, and two files named as
// Playwright's bundles whose `import(` never runs: one as often as read, one once more.
write(
  'node_modules/plain/index.js',
  // A function named import, called as a member, is no dynamic import.
  "const builder = { ['import']: (n) => 2 * n };\nexports.twice = (n) => builder.import(n);\nexports.where = __filename;\n",
);
write('node_modules/tool/cli.js', '#!/usr/bin/env node\nmodule.exports = require("./package.json").name;\n');
write('node_modules/tool/package.json', '{ "name": "tool" }\n');
write('node_modules/lazy/package.json', '{ "main": "index.cjs" }\n');
write('node_modules/lazy/index.cjs', 'module.exports = () => import("node:os").then((os) => typeof os.cpus);\n');
const spelled = (times: number) =>
  `${Array.from({ length: times }, (_, i) => `// import(${i})`).join('\n')}\nmodule.exports = ${times};\n`;
write('node_modules/playwright-core/lib/utilsBundle.js', spelled(3));
write('node_modules/playwright-core/lib/coreBundle.js', spelled(2));
write(
  'main.cjs',
  [
    "const plain = require('plain');",
    "const lazy = require('lazy');",
    "const tool = require('tool/cli.js');",
    "const utils = require('playwright-core/lib/utilsBundle.js');",
    "const core = require('playwright-core/lib/coreBundle.js');",
    "lazy().then((cpus) => console.log(plain.twice(21), require('node:path').basename(plain.where), tool, utils, core, cpus));",
  ].join('\n'),
);
const EXPECTED = '42 index.js tool 3 2 function\n';

test('package modules run alike with and without the hook, and the cached code is taken, not compiled again', {
  skip: HOOK_ONLY,
}, () => {
  const folder = join(root, 'cache');
  assert.equal(run(undefined), EXPECTED, 'without a folder the hook does nothing');
  assert.equal(run(folder), EXPECTED);
  const stored = entries(folder);
  // plain, tool's cli.js and the bundle known to spell import( three times: not the module that
  // imports dynamically, nor the bundle that spells it more often than known.
  assert.equal(stored.size, 3, [...stored.keys()].join(', '));
  assert.equal(run(folder), EXPECTED, 'the second run, from the cache: a dynamic import still works');
  assert.deepEqual(entries(folder), stored, 'entries V8 accepted are not written again');
});

test('an entry V8 rejects is compiled afresh and replaced', { skip: HOOK_ONLY }, () => {
  const folder = join(root, 'cache-damaged');
  run(folder);
  const dir = join(folder, readdirSync(folder)[0]!);
  for (const name of readdirSync(dir)) writeFileSync(join(dir, name), 'not code V8 made');
  const damaged = entries(folder);
  assert.equal(run(folder), EXPECTED);
  for (const [name, mtime] of entries(folder)) assert.ok(mtime > damaged.get(name)!, `${name} rewritten`);
});

test('of the Playwright installed here, the bundles read for the hook are cached and the loader that imports the configuration is not', () => {
  const require = createRequire(import.meta.url);
  const { cacheable } = cache;
  const verdict = (pkg: string, path: string) => {
    const file = join(dirname(require.resolve(`${pkg}/package.json`)), path);
    return cacheable(readFileSync(file, 'utf8'), file);
  };
  // A Playwright release that spells import( in them more or less often needs them read again.
  assert.equal(verdict('playwright-core', 'lib/coreBundle.js'), true);
  assert.equal(verdict('playwright-core', 'lib/utilsBundle.js'), true);
  assert.equal(verdict('playwright', 'lib/transform/babelBundle.js'), true);
  assert.equal(verdict('playwright', 'lib/runner/index.js'), true);
  assert.equal(verdict('playwright', 'lib/common/index.js'), false);
});

test('a process of the hook that writes entries removes the folders of other Node versions and rules, and entries not rewritten for 30 days', {
  skip: HOOK_ONLY,
}, () => {
  const folder = join(root, 'cache-pruned');
  run(folder);
  const [current] = readdirSync(folder);
  const dir = join(folder, current!);
  const kept = [...entries(folder).keys()];
  // Folders of an earlier Node and of earlier rules; a clone's build and a folder of something else beside them.
  for (const name of ['v18.19.0-linux-x64', 'v20.20.2-linux-x64-0badc0de', 'runtime', 'notes'])
    mkdirSync(join(folder, name, 'inside'), { recursive: true });
  // An entry of a file an update replaced, untouched for 31 days; a recent one of a replaced file.
  const old = (Date.now() - 31 * 24 * 3600 * 1000) / 1000;
  writeFileSync(join(dir, 'stale.bin'), 'old code');
  utimesSync(join(dir, 'stale.bin'), old, old);
  writeFileSync(join(dir, 'recent.bin'), 'recent code');
  // A module no run compiled yet: this run writes its entry, and prunes.
  write('node_modules/fresh/index.js', 'module.exports = 1;\n');
  writeFileSync(join(root, 'fresh.cjs'), "require('fresh'); require('./main.cjs');\n");
  const result = spawnSync(process.execPath, ['--require', PRELOAD, join(root, 'fresh.cjs')], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, KGATE_COMPILE_CACHE: folder },
  });
  assert.equal(result.status, 0, result.stderr);
  assert.deepEqual(readdirSync(folder).sort(), [current, 'notes', 'runtime'].sort());
  const now = readdirSync(dir);
  assert.ok(!now.includes('stale.bin'), 'the stale entry is removed');
  assert.ok(now.includes('recent.bin'), 'a recent entry stays');
  for (const name of kept) assert.ok(now.includes(name), `${name} stays`);
  assert.equal(now.length, kept.length + 2, 'the fresh module got its entry');
});

test('the folder: KGATE_COMPILE_CACHE, or off; else the user cache folder on Node 22 and later, node_modules/.cache/kgate on Node 20', () => {
  const home = join(homedir(), '.cache', 'kgate');
  const nodeModules = join(
    dirname(dirname(dirname(createRequire(import.meta.url).resolve('@playwright/test/package.json')))),
  );
  const cases: { given: { env: NodeJS.ProcessEnv; native: boolean }; want: string | undefined }[] = [
    { given: { env: { KGATE_COMPILE_CACHE: 'off' }, native: true }, want: undefined },
    { given: { env: { KGATE_COMPILE_CACHE: 'off' }, native: false }, want: undefined },
    {
      given: { env: { KGATE_COMPILE_CACHE: 'some/where', XDG_CACHE_HOME: '/x' }, native: true },
      want: resolve('some/where'),
    },
    { given: { env: { KGATE_COMPILE_CACHE: '/a/b' }, native: false }, want: '/a/b' },
    { given: { env: { XDG_CACHE_HOME: '/var/cache/me' }, native: true }, want: '/var/cache/me/kgate' },
    // XDG_CACHE_HOME holds an absolute path or is ignored (the XDG base directory rules).
    { given: { env: { XDG_CACHE_HOME: 'relative' }, native: true }, want: home },
    { given: { env: { KGATE_COMPILE_CACHE: '' }, native: true }, want: home },
    { given: { env: {}, native: false }, want: join(nodeModules, '.cache', 'kgate') },
  ];
  for (const { given, want } of cases)
    assert.equal(cache.compileCacheFolder(given.env, given.native), want, JSON.stringify(given));
});

// Node 22 and later: an entry module that loads packages (one importing dynamically, one in code it
// evaluates, as Playwright's bundles do), an ES module of its own, and imports one dynamically.
write('esm/own.mjs', 'export const own = "own";\n');
write('esm/later.mjs', 'export default 7;\n');
write(
  'node_modules/evaluated/index.js',
  'module.exports = () => new Function(\'return import("node:path")\')().then((path) => typeof path.join);\n',
);
write(
  'esm/main.mjs',
  [
    "import { createRequire } from 'node:module';",
    "import { own } from './own.mjs';",
    'const require = createRequire(import.meta.url);',
    "const plain = require('plain');",
    "const imported = [await require('lazy')(), await require('evaluated')()].join(' ');",
    "const later = await import('./later.mjs');",
    "console.log(plain.twice(21), own, later.default, imported, require('node:module').getCompileCacheDir?.() ?? 'none');",
  ].join('\n'),
);
/** What esm/main.mjs prints before the cache folder. */
const NATIVE_EXPECTED = '42 own 7 function function';

/** Runs esm/main.mjs with the preload and the folder (and NODE_OPTIONS); fails if it does not end within 30 s. */
function runNative(folder: string, nodeOptions = ''): { stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, ['--require', PRELOAD, join(root, 'esm', 'main.mjs')], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, KGATE_COMPILE_CACHE: folder, NODE_OPTIONS: nodeOptions },
    timeout: 30_000,
  });
  assert.equal(result.error, undefined, `ended: ${String(result.error)}`);
  assert.equal(result.status, 0, result.stderr);
  return { stdout: result.stdout, stderr: result.stderr };
}

/** The folder Node made for its entries in a version's folder (named for the version, architecture and V8's flags). */
function nodesFolder(versionFolder: string): string {
  const found = readdirSync(versionFolder).filter((name) => name.startsWith('v'));
  assert.equal(found.length, 1, found.join(', '));
  return found[0]!;
}

/** Every entry file under a folder, with its time of change. */
function entriesUnder(folder: string): Map<string, number> {
  const found = new Map<string, number>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name !== '.pruned') found.set(relative(folder, path), statSync(path).mtimeMs);
    }
  };
  walk(folder);
  return found;
}

test("Node 22 and later: the preload keeps every module's compiled code, ES modules and dynamic imports included, in a folder per Node version", {
  skip: NATIVE_ONLY,
}, () => {
  const folder = join(root, 'native');
  const first = runNative(folder);
  const versionFolder = cache.nativeFolder(folder);
  assert.equal(versionFolder, join(folder, `compile-cache-${process.version}`));
  const [line, dir] = [first.stdout.trim(), join(versionFolder, nodesFolder(versionFolder))];
  assert.equal(
    line,
    `${NATIVE_EXPECTED} ${dir}`,
    'the process runs alike, Node keeping its code in the version folder',
  );
  assert.ok(dir.includes(process.version), dir);
  const stored = entriesUnder(folder);
  // Node's: the entry module, its own ES modules, and the packages that import dynamically. The
  // hook's: the package that does not.
  const nodes = [...stored.keys()].filter((name) => !name.includes(`${sep}packages${sep}`));
  const packages = [...stored.keys()].filter((name) => name.includes(`${sep}packages${sep}`));
  assert.ok(nodes.length >= 5, nodes.join(', '));
  assert.equal(packages.length, 1, packages.join(', '));
  assert.equal(runNative(folder).stdout, first.stdout, 'the second run, from the cache: dynamic imports still work');
  assert.deepEqual(entriesUnder(folder), stored, 'entries Node and the hook took are not written again');
});

test('Node 22 and later: a folder that cannot be made or written keeps nothing, prints nothing and never holds the process', {
  skip: NATIVE_ONLY,
}, () => {
  const file = join(root, 'a-file');
  writeFileSync(file, 'not a folder');
  const readOnly = join(root, 'read-only');
  mkdirSync(readOnly);
  chmodSync(readOnly, 0o555);
  // Under /proc no folder can be made: Node itself, handed such a path, spins without end. A
  // read-only folder is one only for a user other than root.
  const folders = [join(file, 'cache'), '/proc/kgate-compile-cache', ...(process.getuid?.() === 0 ? [] : [readOnly])];
  for (const folder of folders) {
    const { stdout, stderr } = runNative(folder);
    assert.equal(stdout, `${NATIVE_EXPECTED} none\n`, `${folder}: the process runs alike, with no cache`);
    assert.equal(stderr, '', `${folder}: nothing printed`);
  }
  assert.deepEqual(readdirSync(readOnly), [], 'nothing written to the read-only folder');
});

test("Node 22 and later: entries another V8 made, in this version's place, are compiled afresh and replaced, with nothing printed", {
  skip: NATIVE_ONLY,
}, () => {
  const folder = join(root, 'native-other');
  // The same Node with another V8 flag writes its entries to a folder of its own (Node names its
  // folders for the version and V8's flags); V8 refuses code another flag or version made alike.
  runNative(folder, '--stack-trace-limit=50');
  const versionFolder = cache.nativeFolder(folder);
  const theirs = nodesFolder(versionFolder);
  const ours = runNative(join(root, 'native-probe')).stdout.trim().split(' ').at(-1)!;
  const place = join(versionFolder, basename(ours));
  assert.notEqual(basename(ours), theirs, 'another folder for other flags');
  cpSync(join(versionFolder, theirs!), place, { recursive: true });
  rmSync(join(versionFolder, theirs!), { recursive: true });
  // And a folder of another Node version beside it.
  mkdirSync(join(folder, 'compile-cache-v22.0.0', 'v22.0.0-x64-00000000-0'), { recursive: true });
  writeFileSync(join(folder, 'compile-cache-v22.0.0', 'v22.0.0-x64-00000000-0', 'abcdef01'), 'code of another Node');
  const planted = entriesUnder(place);
  const { stdout, stderr } = runNative(folder);
  assert.equal(stdout.trim(), `${NATIVE_EXPECTED} ${place}`);
  assert.equal(stderr, '', 'nothing printed');
  for (const [name, mtime] of entriesUnder(place))
    if (planted.has(name)) assert.ok(mtime > planted.get(name)!, `${name} was refused and written again`);
});

test('Node 22 and later: pruning, once a day, removes the folders of versions unused for 30 days and entries not rewritten for 30 days', () => {
  const folder = join(root, 'prune-native');
  const days = (n: number) => (Date.now() - n * 24 * 3600 * 1000) / 1000;
  const ours = cache.nativeFolder(folder);
  const tag = join(ours, 'v-x64-flags-0');
  mkdirSync(tag, { recursive: true });
  writeFileSync(join(tag, 'stale'), 'old');
  utimesSync(join(tag, 'stale'), days(31), days(31));
  writeFileSync(join(tag, 'recent'), 'new');
  // A version last used 31 days ago, one used yesterday, one never stamped but written 40 days ago,
  // and a folder that is no version's.
  for (const [name, age, stamped] of [
    ['compile-cache-v1.2.3', 31, true],
    ['compile-cache-v1.2.4', 1, true],
    ['compile-cache-v1.2.5', 40, false],
    ['notes', 90, false],
  ] as const) {
    mkdirSync(join(folder, name), { recursive: true });
    const stamp = join(folder, name, '.pruned');
    if (stamped) {
      writeFileSync(stamp, '');
      utimesSync(stamp, days(age), days(age));
    }
    utimesSync(join(folder, name), days(age), days(age));
  }
  cache.pruneNative(folder);
  assert.deepEqual(readdirSync(folder).sort(), [basename(ours), 'compile-cache-v1.2.4', 'notes'].sort());
  assert.deepEqual(readdirSync(tag), ['recent']);
  // Within the day nothing is pruned again.
  writeFileSync(join(tag, 'stale'), 'old');
  utimesSync(join(tag, 'stale'), days(31), days(31));
  cache.pruneNative(folder);
  assert.deepEqual(readdirSync(tag).sort(), ['recent', 'stale']);
  // A folder that cannot hold the stamp is left alone, without a word.
  cache.pruneNative(join(root, 'a-file-too', 'x'));
});
