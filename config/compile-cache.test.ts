import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
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
};
/** Node's own cache's tests. */
const NATIVE_ONLY = cache.NATIVE ? false : 'Node 22 and later: Node 20 has no module.enableCompileCache';
const root = mkdtempSync(join(tmpdir(), 'kgate-compile-cache-'));
after(() => rmSync(root, { recursive: true, force: true }));

function write(path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

// Packages as Playwright's are: a plain one, one that imports dynamically, one that imports in code it
// evaluates (new Function).
write(
  'node_modules/plain/index.js',
  // A function named import, called as a member, is no dynamic import.
  "const builder = { ['import']: (n) => 2 * n };\nexports.twice = (n) => builder.import(n);\nexports.where = __filename;\n",
);
write('node_modules/lazy/package.json', '{ "main": "index.cjs" }\n');
write('node_modules/lazy/index.cjs', 'module.exports = () => import("node:os").then((os) => typeof os.cpus);\n');

test('the folder: KGATE_COMPILE_CACHE, or off; else the user cache folder on Node 22 and later; none on Node 20', () => {
  const home = join(homedir(), '.cache', 'kgate');
  const cases: { given: { env: NodeJS.ProcessEnv; native: boolean }; want: string | undefined }[] = [
    { given: { env: { KGATE_COMPILE_CACHE: 'off' }, native: true }, want: undefined },
    { given: { env: { KGATE_COMPILE_CACHE: 'off' }, native: false }, want: undefined },
    // Node 20 has no cache of its own, and kgate patches no loader: nothing is kept there.
    { given: { env: { KGATE_COMPILE_CACHE: '/a/b' }, native: false }, want: undefined },
    {
      given: { env: { KGATE_COMPILE_CACHE: 'some/where', XDG_CACHE_HOME: '/x' }, native: true },
      want: resolve('some/where'),
    },
    { given: { env: { XDG_CACHE_HOME: '/var/cache/me' }, native: true }, want: '/var/cache/me/kgate' },
    // XDG_CACHE_HOME holds an absolute path or is ignored (the XDG base directory rules).
    { given: { env: { XDG_CACHE_HOME: 'relative' }, native: true }, want: home },
    { given: { env: { KGATE_COMPILE_CACHE: '' }, native: true }, want: home },
    { given: { env: {}, native: false }, want: undefined },
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
  // Node's, every one: the entry module, its own ES modules, and the packages (CommonJS, those that
  // import dynamically too); kgate adds no cache of its own beside it.
  assert.ok(stored.size >= 6, [...stored.keys()].join(', '));
  assert.ok(![...stored.keys()].some((name) => name.includes(`${sep}packages${sep}`)), "no hook of kgate's");
  assert.equal(runNative(folder).stdout, first.stdout, 'the second run, from the cache: dynamic imports still work');
  assert.deepEqual(entriesUnder(folder), stored, 'entries Node took are not written again');
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
