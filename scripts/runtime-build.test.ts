import assert from 'node:assert/strict';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { cloneBuild, RUNTIME_DATA, RUNTIME_ROOTS, sourcesKey } from './runtime-build.mjs';

// A clone in miniature: every runtime folder, a module importing another, the data files.
const root = mkdtempSync(join(tmpdir(), 'kgate-runtime-build-'));
const builds = join(root, 'node_modules', '.cache', 'kgate', 'runtime');
after(() => rmSync(root, { recursive: true, force: true }));

function write(path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}
for (const dir of RUNTIME_ROOTS) mkdirSync(join(root, dir), { recursive: true });
for (const file of RUNTIME_DATA) write(file, '{}\n');
write('package.json', '{ "type": "module", "version": "9.9.9" }\n');
write('playwright.config.ts', 'export default {};\n');
write('config/words.ts', "export const word: string = 'first';\n");
write('cli/main.ts', "import { word } from '../config/words.ts';\nexport const said = (): string => word;\n");
write('cli/main.test.ts', 'this is no module the build may compile\n');

async function said(build: string): Promise<string> {
  const module = (await import(pathToFileURL(join(build, 'cli', 'main.js')).href)) as { said: () => string };
  return module.said();
}

test('a clone runs a whole build of its current sources, made once and made again when a source changes', async () => {
  // Processes starting together build side by side; every one gets the same whole build.
  const [first, second, third] = await Promise.all([1, 2, 3].map(() => cloneBuild({ root, builds })));
  assert.equal(first, second);
  assert.equal(second, third);
  assert.equal(await said(first!), 'first');
  assert.deepEqual(readdirSync(builds), [sourcesKey(root)], 'no half-written build is left beside it');
  assert.equal(existsSync(join(first!, 'cli', 'main.test.js')), false, 'tests are not compiled');
  assert.equal(JSON.parse(readFileSync(join(first!, 'package.json'), 'utf8')).version, '9.9.9');
  assert.deepEqual(JSON.parse(readFileSync(join(first!, 'sources.json'), 'utf8')), { root });
  for (const file of RUNTIME_DATA) assert.ok(existsSync(join(first!, file)), `${file} is beside the modules`);
  assert.equal(await cloneBuild({ root, builds }), first, 'unchanged sources: the same build');

  write('config/words.ts', "export const word: string = 'second';\n");
  const changed = await cloneBuild({ root, builds });
  assert.notEqual(changed, first);
  assert.equal(await said(changed), 'second');

  // An edit that keeps the size is seen by its time of change.
  write('config/words.ts', "export const word: string = 'thirds';\n");
  const later = new Date(Date.now() + 5_000);
  utimesSync(join(root, 'config/words.ts'), later, later);
  assert.equal(await said(await cloneBuild({ root, builds })), 'thirds');
});

test('builds of earlier sources are removed an hour after they were made, the current one kept', async () => {
  const current = await cloneBuild({ root, builds });
  const old = join(builds, 'an-old-build');
  const stopped = join(builds, '.a-stopped-build.1.1');
  for (const dir of [old, stopped]) {
    mkdirSync(dir, { recursive: true });
    const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
    utimesSync(dir, twoHoursAgo, twoHoursAgo);
  }
  const recent = join(builds, 'a-recent-build');
  mkdirSync(recent, { recursive: true });
  write('config/words.ts', "export const word: string = 'fourth';\n");
  const next = await cloneBuild({ root, builds });
  assert.equal(existsSync(old), false);
  assert.equal(existsSync(stopped), false);
  assert.equal(existsSync(recent), true, 'a build made within the hour may still be read by a run');
  assert.equal(existsSync(current), true);
  assert.equal(await said(next), 'fourth');
});

test('only what the build compiles or copies decides whether it is made again', async () => {
  const current = await cloneBuild({ root, builds });
  write('cli/main.test.ts', 'an edited test\n');
  write('cli/README.md', 'an edited document\n');
  assert.equal(await cloneBuild({ root, builds }), current);
  write(RUNTIME_DATA[0]!, '{ "edited": true }\n');
  assert.notEqual(await cloneBuild({ root, builds }), current);
});
