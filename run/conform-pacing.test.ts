// test-runner: alone (it counts arrivals per second at a proxy: a busy machine stamps them late)
// `kgate conform --max-rps` measured where it matters: at the target. A proxy in front of the
// reference server stamps every request's arrival; the run must stay under the rate in every
// second, send exactly what it reports, and announce beforehand about what it then sends.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { PREFLIGHT_PATHS } from '../contracts/preflight.ts';
import type { RunSummary, TestRecord } from '../reporting/summary.ts';
import { type ArrivalsProxy, startArrivalsProxy } from '../scripts/arrivals-proxy.ts';
import { type ProcessResult, ROOT, referenceKeyEnv, runKgate } from '../scripts/run-process.ts';
import { budgetKey, requestBudget } from './request-budget.ts';

const RPS = 40;
const reportDir = mkdtempSync(join(tmpdir(), 'kgate-pacing-'));

let reference: { url: string; keys: { full: string; academicOnly: string; exhausted: string } };
let serve: ChildProcess;
let proxy: ArrivalsProxy;
const arrivals: number[] = [];
/** The path and query of every request, in order of arrival. */
const arrivalPaths: string[] = [];
const CALCHISTOGRAM = '/academic/v1.0/calchistogram';
/** Arrivals of requests to CALCHISTOGRAM (GET and POST). */
const calchistogramArrivals: number[] = [];

before(async () => {
  // The reference server runs in a process of its own, so the proxy's clock is never held up by its work.
  serve = spawn(process.execPath, [join(ROOT, 'bin/kgate.mjs'), 'serve', '--json']);
  reference = await new Promise((resolve, reject) => {
    serve.stdout!.once('data', (chunk: Buffer) => resolve(JSON.parse(chunk.toString('utf8'))));
    serve.once('exit', (code) => reject(new Error(`kgate serve exited ${code}`)));
  });
  proxy = await startArrivalsProxy(reference.url, (req) => {
    arrivals.push(performance.now());
    arrivalPaths.push(req.url ?? '');
    if (req.url?.startsWith(CALCHISTOGRAM)) calchistogramArrivals.push(performance.now());
  });
});
after(async () => {
  proxy.close();
  serve.kill('SIGTERM');
  rmSync(reportDir, { recursive: true, force: true });
});

function conform(args: string[]): Promise<ProcessResult> {
  return runKgate(['conform', ...args], {
    env: {
      KGATE_BASE_URL: proxy.url,
      KGATE_CONFORM_OPTIONS: '',
      GITHUB_STEP_SUMMARY: '',
      ...referenceKeyEnv(reference.keys),
    },
    // About 900 requests at 40 a second, with room for a slow machine.
    timeoutMs: 300_000,
  });
}

/**
 * How late the proxy may stamp an arrival: it stamps a request when its event loop gets to it,
 * which on a busy machine (reading another worker's upload, a test file running beside this one)
 * can be some milliseconds after the request arrived. A window of a second is measured as one this
 * much shorter, so a late first stamp cannot make a paced second look like one with an extra request;
 * a pace off by even one request a second is still caught (its requests come 1/9 s apart, not 1/8).
 */
const STAMP_JITTER_MS = 25;

/** The most arrivals in any window of `ms` milliseconds (less the proxy's stamp jitter). */
function busiestWindow(times: number[], ms: number): number {
  let most = 0;
  let start = 0;
  for (let end = 0; end < times.length; end++) {
    while (times[end]! - times[start]! >= ms - STAMP_JITTER_MS) start++;
    most = Math.max(most, end - start + 1);
  }
  return most;
}

/**
 * Why a test's record disagrees with the table, if it does. The table holds exactly what the suite
 * decides: the test data a test uses, and the requests it sends to its own operation's path. Two
 * parts follow what the target's answers hold, which on the reference server changes with the date
 * (test data asks for today's hot events, and each day has its own events): the reads a test makes
 * of other operations (event-documents-agree follows each event of two answers to its documents: 2
 * to 6 reads over the days of a month), and whether a deferred check's test sends anything (nothing
 * when a generated answer judged its cell, its own requests when none could: a day with fewer events
 * than a page has no second page to compare, with the test data it then uses). Those are held as
 * reads of the same operations, and as one of the two counts.
 */
function staleOf(record: TestRecord): string | undefined {
  const row = requestBudget().tests[budgetKey(record)];
  const sent = record.requests?.test ?? 0;
  const said = `${budgetKey(record)}: ${JSON.stringify(record.requests)}`;
  if (!row) return said;
  if (row.alone !== undefined && sent === row.alone && sent !== row.requests)
    return (row.aloneData ?? row.data).join() === record.requests?.data.join() ? undefined : said;
  if (row.data.join() !== record.requests?.data.join()) return said;
  if (row.alone !== undefined) return sent === row.requests ? undefined : said;
  const path = record.operation.slice(record.operation.indexOf(' ') + 1);
  const byPath: Record<string, number> = {};
  for (const [label, n] of Object.entries(record.requests?.byOperation ?? {})) {
    const at = label.slice(label.indexOf(' ') + 1);
    byPath[at] = (byPath[at] ?? 0) + n;
  }
  const table = row.paths ?? (row.requests > 0 ? { [path]: row.requests } : {});
  const others = (paths: Record<string, number>) =>
    Object.keys(paths)
      .filter((at) => at !== path && paths[at]! > 0)
      .sort()
      .join();
  return (byPath[path] ?? 0) === (table[path] ?? 0) && others(byPath) === others(table) ? undefined : said;
}

test(`a run paced at ${RPS} requests/s stays under it at the target, and sends what it announced`, async () => {
  const { code, stdout, stderr } = await conform(['--max-rps', String(RPS), '--report-dir', reportDir, '--json']);
  assert.equal(code, 0, stderr);
  const result = JSON.parse(stdout) as RunSummary;
  assert.equal(result.verdict, 'pass', 'the clean server passes paced too');

  // Every request: the suite's own (tests and discovery) and the CLI's preflight requests, which all
  // come before the run starts. Paced, the preflight sends one at a time and stops at the first
  // answer that rules out every problem it names: one to four.
  const preflightSent = arrivalPaths.findIndex((path) => !PREFLIGHT_PATHS.includes(path));
  assert.ok(preflightSent >= 1 && preflightSent <= PREFLIGHT_PATHS.length, `preflight requests: ${preflightSent}`);
  assert.equal(
    arrivals.length,
    result.requests! + preflightSent,
    'the target received what the run counted, plus the preflight',
  );
  const announced = /tests will send about (\d+)(?: to (\d+))? requests: (\d+) by the tests/.exec(stderr);
  assert.ok(announced, `the estimate is printed before the run: ${stderr}`);
  const [typical, most, byTests] = [Number(announced[1]), Number(announced[2] ?? announced[1]), Number(announced[3])];
  assert.ok(
    result.requests! >= byTests && result.requests! <= most,
    `sent ${result.requests} within the announced ${typical} to ${most}`,
  );

  // The committed table is what this suite sends (npm run docs:requests rewrites it), as far as the
  // suite decides it (staleOf).
  const records = JSON.parse(readFileSync(join(reportDir, 'tests.json'), 'utf8')) as TestRecord[];
  const stale = records.map((record) => staleOf(record)).filter((why): why is string => why !== undefined);
  assert.deepEqual(stale, [], 'run/request-budget.json is stale: run npm run docs:requests');

  const times = [...arrivals].sort((a, b) => a - b);
  const gaps = times.slice(1).map((time, index) => time - times[index]!);
  const spanS = (times.at(-1)! - times[0]!) / 1000;
  const rate = (times.length - 1) / spanS;
  const sorted = [...gaps].sort((a, b) => a - b);
  console.log(
    `pacing at ${RPS}/s: ${times.length} requests in ${spanS.toFixed(1)} s = ${rate.toFixed(2)}/s; busiest 1 s: ${busiestWindow(times, 1000)}, busiest 5 s: ${busiestWindow(times, 5000)}; gaps min ${sorted[0]!.toFixed(1)} ms, p1 ${sorted[Math.floor(sorted.length / 100)]!.toFixed(1)} ms, median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(1)} ms (interval ${1000 / RPS} ms)`,
  );
  assert.ok(rate <= RPS, `the mean rate ${rate.toFixed(2)}/s is at most ${RPS}/s`);
  assert.ok(busiestWindow(times, 1000) <= RPS, `at most ${RPS} in any second`);
  assert.ok(busiestWindow(times, 5000) <= 5 * RPS, `at most ${5 * RPS} in any 5 s`);
  // Single gaps are not asserted: the proxy stamps a request when its event loop gets to it, and
  // reading another worker's megabyte upload can hold one stamp back by some milliseconds.
});

test('a run with a rate for one path holds that path to it at the target, GET and POST together', async () => {
  const PATH_RPS = 8;
  calchistogramArrivals.length = 0;
  const { code, stdout, stderr } = await conform([
    '--max-rps-by-path',
    `${CALCHISTOGRAM}=${PATH_RPS}`,
    '--generate',
    '0',
    '--grep',
    CALCHISTOGRAM,
    '--report-dir',
    join(reportDir, 'by-path'),
    '--json',
  ]);
  assert.equal(code, 0, stderr);
  assert.equal((JSON.parse(stdout) as RunSummary).verdict, 'pass', 'the clean server passes paced by path too');
  assert.match(
    stderr,
    new RegExp(`; ${CALCHISTOGRAM} at most ${PATH_RPS}/s: at least \\d+ s`),
    'the estimate names the pace',
  );
  const times = [...calchistogramArrivals].sort((a, b) => a - b);
  assert.ok(times.length > 3 * PATH_RPS, `enough requests to measure the pace: ${times.length}`);
  assert.ok(busiestWindow(times, 1000) <= PATH_RPS, `at most ${PATH_RPS} to ${CALCHISTOGRAM} in any second`);
  const spanS = (times.at(-1)! - times[0]!) / 1000;
  assert.ok((times.length - 1) / spanS <= PATH_RPS, `the mean rate ${((times.length - 1) / spanS).toFixed(2)}/s`);
});
