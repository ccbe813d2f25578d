// Compiled code kept between runs (config/compile-cache.cjs), seen from outside the processes: which
// processes of a run start with it, where it lands, and that a cache kgate cannot use changes nothing
// but speed. On Node 22 and later every process keeps its code through Node's own cache; on Node 20,
// which has none, no process keeps any (kgate patches no loader).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { after, test } from 'node:test';
import { processTree } from '../scripts/process-memory.ts';
import { type ProcessResult, runKgate } from '../scripts/run-process.ts';

const cache = createRequire(import.meta.url)('../config/compile-cache.cjs') as {
  NATIVE: boolean;
  nativeFolder: (folder: string) => string;
};
const NATIVE_ONLY = cache.NATIVE ? false : 'Node 22 and later: Node 20 has no module.enableCompileCache';
const dir = mkdtempSync(join(tmpdir(), 'kgate-compile-cache-run-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const ONE_CHECK = ['conform', '--checks', 'response-matches-spec', '--generate', '0', '--json'];

/** The processes below `pid` with their command lines and environments, as often as they are seen. */
function watch(seen: Map<number, { command: string; environ: string[] }>, pid: number): NodeJS.Timeout {
  return setInterval(() => {
    for (const child of processTree(pid).slice(1)) {
      try {
        seen.set(child, {
          command: readFileSync(`/proc/${child}/cmdline`, 'utf8').replaceAll('\0', ' '),
          environ: readFileSync(`/proc/${child}/environ`, 'utf8').split('\0'),
        });
      } catch {
        // Ended meanwhile.
      }
    }
  }, 10);
}

/** Every file under a folder, relative to it. */
function filesUnder(folder: string): string[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { recursive: true, encoding: 'utf8' }).filter((path) =>
    statSync(join(folder, path)).isFile(),
  );
}

test("on Node 22 and later every process a run starts keeps its compiled code: Playwright's runner and workers, the embedded server of a load run; on Node 20 none", async () => {
  const folder = join(dir, 'processes');
  const seen = new Map<number, { command: string; environ: string[] }>();
  let watcher: NodeJS.Timeout | undefined;
  const onSpawn = (pid: number) => {
    watcher = watch(seen, pid);
  };
  const env = { KGATE_COMPILE_CACHE: folder };
  const conform = await runKgate([...ONE_CHECK, '--report-dir', join(dir, 'processes-run')], { env, onSpawn });
  clearInterval(watcher);
  assert.equal(conform.code, 0, conform.stderr);
  const probe = await runKgate(['probe', 'body-limit', '--json'], { env, onSpawn, cwd: dir });
  clearInterval(watcher);
  assert.equal(probe.code, 0, probe.stderr);

  const started = [...seen.values()];
  const runner = started.filter((child) => / test --config /.test(child.command));
  const workers = started.filter((child) => child.command.includes('workerProcessEntry'));
  const server = started.filter((child) => /embedded-server\.(js|ts)/.test(child.command));
  assert.equal(runner.length, 1, started.map((child) => child.command).join('\n'));
  assert.ok(workers.length >= 1, 'a worker was seen');
  assert.equal(server.length, 1, started.map((child) => child.command).join('\n'));
  const keeps = (child: { command: string; environ: string[] }) =>
    child.command.includes('compile-cache-preload.cjs') && child.environ.includes(`KGATE_COMPILE_CACHE=${folder}`);
  for (const child of [...runner, ...workers, ...server]) assert.equal(keeps(child), cache.NATIVE, child.command);
  if (cache.NATIVE) assert.ok(filesUnder(folder).length > 10, 'entries were written');
  else assert.deepEqual(filesUnder(folder), [], 'nothing is kept on Node 20');
});

test('on Node 22 and later the CLI keeps its compiled code in the user cache folder, a folder per Node version, never in the report folder', {
  skip: NATIVE_ONLY,
}, async () => {
  // XDG_CACHE_HOME first, else ~/.cache.
  for (const where of ['xdg', 'home'] as const) {
    const home = join(dir, `${where}-home`);
    const xdg = join(dir, `${where}-xdg`);
    const env = { KGATE_COMPILE_CACHE: '', HOME: home, XDG_CACHE_HOME: where === 'xdg' ? xdg : '' };
    const folder = join(where === 'xdg' ? xdg : join(home, '.cache'), 'kgate');
    // The CLI alone.
    const version = await runKgate(['--version'], { env, cwd: dir });
    assert.equal(version.code, 0, version.stderr);
    const own = filesUnder(folder);
    assert.ok(own.length > 0, `${where}: the CLI kept its code in ${folder}`);
    assert.ok(
      own.every((path) => path.startsWith(`compile-cache-${process.version}/`)),
      `${where}: in the folder of Node ${process.version}: ${own.join(', ')}`,
    );
    if (where === 'home') continue;
    // A whole run: the report folder holds the reports and nothing else.
    const reports = join(dir, 'xdg-reports');
    const run = await runKgate([...ONE_CHECK, '--report-dir', reports], { env, cwd: dir });
    assert.equal(run.code, 0, run.stderr);
    assert.ok(filesUnder(folder).length > own.length + 10, 'the runner and its worker kept theirs beside it');
    const reported = filesUnder(reports);
    assert.ok(reported.includes('summary.json'), reported.join(', '));
    assert.deepEqual(
      reported.filter((path) => /compile-cache|^v\d+\.\d+\.\d+-/.test(path)),
      [],
      'no compiled code in the report folder',
    );
  }
});

/** What must not change whatever the cache: the exit code and the verdict with its counts. */
function outcome(run: ProcessResult): unknown {
  const summary = JSON.parse(run.stdout) as {
    verdict: string;
    exitCode: number;
    targets: { verdict: string; counts: unknown; tests: { total: number } }[];
  };
  return {
    code: run.code,
    verdict: summary.verdict,
    exitCode: summary.exitCode,
    targets: summary.targets.map((target) => ({
      verdict: target.verdict,
      counts: target.counts,
      tests: target.tests.total,
    })),
  };
}

test('a cache folder kgate cannot write, or one holding the entries of another Node or V8, costs only speed: the same exit code and verdict, and no word of it', async () => {
  const reports = join(dir, 'unusable-reports');
  const conform = (env: Record<string, string>) => runKgate([...ONE_CHECK, '--report-dir', reports], { env, cwd: dir });
  const baseline = await conform({ KGATE_COMPILE_CACHE: 'off' });
  assert.equal(baseline.code, 0, baseline.stderr);
  const judged = (name: string, run: ProcessResult) => {
    assert.deepEqual(outcome(run), outcome(baseline), `${name}: the same outcome as without a cache`);
    assert.doesNotMatch(run.stderr, /warn|compile|cache|EACCES|ENOTDIR|ENOENT/i, `${name}: nothing said of it`);
  };

  // Not writable: a path under a file; a path under /proc, where no folder can be made (Node
  // itself, handed one, spins without end); a read-only folder for a user other than root.
  const file = join(dir, 'a-file');
  writeFileSync(file, 'not a folder');
  judged('under a file', await conform({ KGATE_COMPILE_CACHE: join(file, 'cache') }));
  judged('under /proc', await conform({ KGATE_COMPILE_CACHE: '/proc/kgate-compile-cache' }));

  // Entries another V8 made where this one reads (Node 22 and later; Node 20 keeps none): a run with
  // another V8 flag writes them into a folder of its own, moved here to this flag's place. V8
  // refuses code another version or flag made alike.
  if (!cache.NATIVE) return;
  const folder = join(dir, 'other-entries');
  const other = await conform({ KGATE_COMPILE_CACHE: folder, NODE_OPTIONS: '--stack-trace-limit=50' });
  assert.equal(other.code, 0, other.stderr);
  let place = folder;
  {
    const versionFolder = cache.nativeFolder(folder);
    // Node's own folder (named for the version, architecture and V8's flags).
    const [theirs] = readdirSync(versionFolder).filter((name) => name.startsWith('v'));
    const probe = spawnSync(
      process.execPath,
      [
        '-e',
        "const m = require('node:module'); m.enableCompileCache(process.argv[1]); console.log(m.getCompileCacheDir())",
        versionFolder,
      ],
      { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } },
    );
    place = probe.stdout.trim();
    assert.notEqual(basename(place), theirs, 'another folder for another flag');
    cpSync(join(versionFolder, theirs!), place, { recursive: true });
    rmSync(join(versionFolder, theirs!), { recursive: true });
    // And a folder of another Node version beside this one's.
    mkdirSync(join(folder, 'compile-cache-v22.0.0', 'v22.0.0-x64-00000000-0'), { recursive: true });
    writeFileSync(join(folder, 'compile-cache-v22.0.0', 'v22.0.0-x64-00000000-0', '0badc0de'), 'not this Node');
  }
  const planted = new Map(filesUnder(place).map((path) => [path, statSync(join(place, path)).mtimeMs]));
  assert.ok(planted.size > 10, `${planted.size} entries planted`);
  judged('entries of another V8', await conform({ KGATE_COMPILE_CACHE: folder }));
  const rewritten = filesUnder(place).filter((path) => statSync(join(place, path)).mtimeMs > (planted.get(path) ?? 0));
  assert.ok(
    rewritten.length > planted.size / 2,
    `the refused entries were compiled afresh and written again (${rewritten.length} of ${planted.size}: ${relative(dir, place)})`,
  );
});
