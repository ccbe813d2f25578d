// Runs every *.test.ts of the project under node's test runner (through tsx), one process per file,
// several files at once. Usage: tsx scripts/test.ts [path-filter ...]
//
// Files run side by side (KGATE_TEST_CONCURRENCY at once, default: the number of cores plus one,
// since most files wait on servers and child processes more than they compute), the longest first:
// the durations of the last whole run (reports/test-durations.json; a file it did not time counts
// as long), or on a fresh clone the files marked `test-runner: long` first. A file whose first lines
// hold the marker `test-runner: alone` (with its reason) runs with no other file beside it, after
// the others: a test that measures time or rate against the machine's own pace, or that needs
// something no other file may touch at the same time. Each file's output is printed whole when it
// ends, then one line per file with its time, each failing file's failures again (a reader of the
// output's tail sees why), and the totals. A file that has not ended within KGATE_TEST_FILE_LIMIT_S
// seconds (default 15 minutes) is stopped and fails.
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative } from 'node:path';

const ROOTS = [
  'action',
  'config',
  'page',
  'openapi',
  'http',
  'reference',
  'contracts',
  'reporting',
  'run',
  'proof',
  'load',
  'drift',
  'compare',
  'cli',
  'bench',
  'scripts',
];
/** The marker of a file that runs alone, in its first lines: `// test-runner: alone (why)`. */
export const ALONE_MARKER = 'test-runner: alone';
/** The marker of a file that takes minutes, in its first lines: started first on a fresh clone. */
export const LONG_MARKER = 'test-runner: long';
/** Lines of a file searched for the marker. */
const MARKER_LINES = 10;
const root = new URL('..', import.meta.url).pathname;
const DURATIONS = join(root, 'reports', 'test-durations.json');

function findTests(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  return entries.flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'generated') return [];
    if (statSync(path).isDirectory()) return findTests(path);
    return name.endsWith('.test.ts') ? [relative(root, path)] : [];
  });
}

/** True when the file's first lines hold the marker. */
export function marked(source: string, marker: string): boolean {
  return source.split('\n', MARKER_LINES).some((line) => line.includes(marker));
}

interface FileResult {
  file: string;
  code: number;
  seconds: number;
  output: string;
  counts: Record<string, number>;
}

/**
 * A test file still running after this many seconds (KGATE_TEST_FILE_LIMIT_S, default 15 minutes,
 * about four times the longest file's time on a loaded machine) is stopped and fails, named: a file
 * that never ends does not hold the whole run until CI's own limit. Its process is killed; what it
 * started itself and did not stop may outlive it.
 */
const FILE_LIMIT_S = Number(process.env.KGATE_TEST_FILE_LIMIT_S) || 900;

/** Runs one test file in a process of its own, its output kept until it ends. */
function runFile(file: string): Promise<FileResult> {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--test', '--test-reporter=spec', '--test-concurrency=1', file],
    { cwd: root, env: { ...process.env, FORCE_COLOR: '0' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  return new Promise((resolve) => {
    let ended = false;
    const end = (code: number) => {
      if (ended) return;
      ended = true;
      clearTimeout(limit);
      const counts: Record<string, number> = {};
      // The spec reporter ends with `ℹ tests 12`, `ℹ pass 12`, `ℹ fail 0`...
      for (const match of output.matchAll(/^ℹ (tests|pass|fail|cancelled|skipped|todo) (\d+)$/gm))
        counts[match[1]!] = Number(match[2]);
      resolve({ file, code, seconds: (performance.now() - started) / 1000, output, counts });
    };
    const limit = setTimeout(() => {
      output += `\n✖ ${file} did not end within ${FILE_LIMIT_S} s (KGATE_TEST_FILE_LIMIT_S): stopped\n`;
      child.kill('SIGKILL');
      // Not waiting for its pipes to close: a process it started may hold them open.
      end(1);
    }, FILE_LIMIT_S * 1000);
    child.on('close', (code, signal) => end(code ?? (signal ? 1 : 0)));
  });
}

/** Runs the files, `concurrency` at once, in the order given; calls `done` as each one ends. */
async function runPool(files: string[], concurrency: number, done: (result: FileResult) => void): Promise<void> {
  const queue = [...files];
  const lane = async () => {
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) done(await runFile(file));
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, files.length) }, lane));
}

function readDurations(): Record<string, number> {
  try {
    return JSON.parse(readFileSync(DURATIONS, 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
}

const filters = process.argv.slice(2);
const files = ROOTS.flatMap((dir) => findTests(join(root, dir)))
  .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)))
  .sort();
if (files.length === 0) {
  console.error(`no test files match ${filters.join(' ') || '*.test.ts'}`);
  process.exit(1);
}
const concurrency = Number(process.env.KGATE_TEST_CONCURRENCY) || availableParallelism() + 1;
const sources = new Map(files.map((file) => [file, readFileSync(join(root, file), 'utf8')]));
const timed = readDurations();
// Longest first: the run ends when its longest file does, so that one starts at once.
const lengthOf = (file: string) =>
  Object.keys(timed).length > 0
    ? (timed[file] ?? Number.POSITIVE_INFINITY)
    : marked(sources.get(file)!, LONG_MARKER)
      ? 1
      : 0;
const byLength = (a: string, b: string) => lengthOf(b) - lengthOf(a) || a.localeCompare(b);
const alone = files.filter((file) => marked(sources.get(file)!, ALONE_MARKER)).sort(byLength);
const together = files.filter((file) => !alone.includes(file)).sort(byLength);

const started = performance.now();
const results: FileResult[] = [];
const report = (result: FileResult) => {
  results.push(result);
  console.log(`\n── ${result.file} (${result.seconds.toFixed(1)} s, exit ${result.code})`);
  process.stdout.write(result.output.endsWith('\n') ? result.output : `${result.output}\n`);
};
console.log(
  `test: ${together.length} file(s), ${concurrency} at once, then ${alone.length} file(s) alone (${ALONE_MARKER})`,
);
await runPool(together, concurrency, report);
await runPool(alone, 1, report);

/** Lines of a failing file's failure report repeated at the end of the run. */
const FAILURE_LINES = 80;

/** The failure report node's spec reporter ends a failing file with, or its last lines when it has none. */
function failureReport(output: string): string {
  const marker = output.lastIndexOf('✖ failing tests:');
  const lines = (marker >= 0 ? output.slice(marker) : output).trimEnd().split('\n');
  const kept = marker >= 0 ? lines.slice(0, FAILURE_LINES) : lines.slice(-FAILURE_LINES);
  const cut = lines.length - kept.length;
  return cut > 0 ? `${kept.join('\n')}\n  (${cut} more line(s) in the file's output above)` : kept.join('\n');
}

const seconds = (performance.now() - started) / 1000;
const total = (name: string) => results.reduce((sum, result) => sum + (result.counts[name] ?? 0), 0);
const failed = results.filter((result) => result.code !== 0);
console.log('\n── files, slowest first');
for (const result of [...results].sort((a, b) => b.seconds - a.seconds))
  console.log(
    `${result.seconds.toFixed(1).padStart(7)} s  ${result.code === 0 ? 'ok  ' : 'FAIL'}  ${result.file}${alone.includes(result.file) ? '  (alone)' : ''}`,
  );
for (const result of failed) console.log(`\n── failures of ${result.file}\n${failureReport(result.output)}`);
console.log(
  `\ntest: ${results.length} files, ${total('tests')} tests, ${total('pass')} passed, ${total('fail')} failed, ${total('cancelled')} cancelled, ${total('skipped')} skipped, in ${seconds.toFixed(1)} s`,
);
if (failed.length > 0) console.log(`test: failed: ${failed.map((result) => result.file).join(', ')}`);
// Only a whole run records durations, so a filtered one does not reorder the next whole run.
if (filters.length === 0) {
  mkdirSync(join(root, 'reports'), { recursive: true });
  writeFileSync(
    DURATIONS,
    `${JSON.stringify(Object.fromEntries(results.map((result) => [result.file, Math.round(result.seconds)])), null, 2)}\n`,
  );
}
process.exit(failed.length > 0 ? 1 : 0);
