import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
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
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const HOOK = fileURLToPath(new URL('./compile-cache.cjs', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'kgate-compile-cache-'));
after(() => rmSync(root, { recursive: true, force: true }));

function write(path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

/** Runs main.cjs of the tree with the hook, as Playwright's processes run; returns stdout. */
function run(cache: string | undefined): string {
  const result = spawnSync(process.execPath, ['--require', HOOK, join(root, 'main.cjs')], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, KGATE_COMPILE_CACHE: cache ?? '' },
  });
  assert.equal(result.status, 0, result.stderr);
  return result.stdout;
}

/** The cache entries and their times of change. */
function entries(cache: string): Map<string, number> {
  const dirs = readdirSync(cache);
  assert.equal(dirs.length, 1, 'one folder per Node version and platform');
  const dir = join(cache, dirs[0]!);
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

test('package modules run alike with and without the cache, and the cached code is taken, not compiled again', () => {
  const cache = join(root, 'cache');
  assert.equal(run(undefined), EXPECTED, 'without a folder the hook does nothing');
  assert.equal(run(cache), EXPECTED);
  const stored = entries(cache);
  // plain, tool's cli.js and the bundle known to spell import( three times: not the module that
  // imports dynamically, nor the bundle that spells it more often than known.
  assert.equal(stored.size, 3, [...stored.keys()].join(', '));
  assert.equal(run(cache), EXPECTED, 'the second run, from the cache: a dynamic import still works');
  assert.deepEqual(entries(cache), stored, 'entries V8 accepted are not written again');
});

test('an entry V8 rejects is compiled afresh and replaced', () => {
  const cache = join(root, 'cache-damaged');
  run(cache);
  const dir = join(cache, readdirSync(cache)[0]!);
  for (const name of readdirSync(dir)) writeFileSync(join(dir, name), 'not code V8 made');
  const damaged = entries(cache);
  assert.equal(run(cache), EXPECTED);
  for (const [name, mtime] of entries(cache)) assert.ok(mtime > damaged.get(name)!, `${name} rewritten`);
});

test('of the Playwright installed here, the bundles read for the cache are cached and the loader that imports the configuration is not', () => {
  const require = createRequire(import.meta.url);
  const { cacheable } = require('./compile-cache.cjs') as { cacheable: (content: string, filename: string) => boolean };
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

test('a process that writes entries removes the folders of other Node versions and rules, and entries not rewritten for 30 days', () => {
  const cache = join(root, 'cache-pruned');
  run(cache);
  const [current] = readdirSync(cache);
  const dir = join(cache, current!);
  const kept = [...entries(cache).keys()];
  // Folders of an earlier Node and of earlier rules; a clone's build and a folder of something else beside them.
  for (const name of ['v18.19.0-linux-x64', 'v20.20.2-linux-x64-0badc0de', 'runtime', 'notes'])
    mkdirSync(join(cache, name, 'inside'), { recursive: true });
  // An entry of a file an update replaced, untouched for 31 days; a recent one of a replaced file.
  const old = (Date.now() - 31 * 24 * 3600 * 1000) / 1000;
  writeFileSync(join(dir, 'stale.bin'), 'old code');
  utimesSync(join(dir, 'stale.bin'), old, old);
  writeFileSync(join(dir, 'recent.bin'), 'recent code');
  // A module no run compiled yet: this run writes its entry, and prunes.
  write('node_modules/fresh/index.js', 'module.exports = 1;\n');
  writeFileSync(join(root, 'fresh.cjs'), "require('fresh'); require('./main.cjs');\n");
  const result = spawnSync(process.execPath, ['--require', HOOK, join(root, 'fresh.cjs')], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, KGATE_COMPILE_CACHE: cache },
  });
  assert.equal(result.status, 0, result.stderr);
  assert.deepEqual(readdirSync(cache).sort(), [current, 'notes', 'runtime'].sort());
  const now = readdirSync(dir);
  assert.ok(!now.includes('stale.bin'), 'the stale entry is removed');
  assert.ok(now.includes('recent.bin'), 'a recent entry stays');
  for (const name of kept) assert.ok(now.includes(name), `${name} stays`);
  assert.equal(now.length, kept.length + 2, 'the fresh module got its entry');
});
