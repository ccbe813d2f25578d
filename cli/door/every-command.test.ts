// test-runner: long (every command that talks to a target, run as a user runs it, through every condition of the door)
// Every command that talks to a target goes through the one door (cli/door/door.ts), and this table
// holds each of them to it, condition by condition, as a user meets them: a wrong key, no key, a
// target named only in the configuration file, a report folder that cannot be made, a base URL whose
// prefix routes nothing, an unreachable target, and SIGTERM in the middle of a run. A command that
// takes --base-url and is not in the table fails the first test: a new command cannot skip the door.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type ReferenceServer, startReferenceServer } from '../../reference/index.ts';
import { type ArrivalsProxy, startArrivalsProxy } from '../../scripts/arrivals-proxy.ts';
import { scratchLeft } from '../../scripts/run-folder-left.ts';
import { ROOT, runKgate } from '../../scripts/run-process.ts';
import { COMMANDS } from '../main.ts';

/** One command as the table runs it: its words, what else it needs to start, and what it is. */
interface Row {
  words: string[];
  /** Its name in COMMANDS and in its lines, where it differs from its words (`load` for `load smoke`). */
  name?: string;
  /** Arguments that keep a run short (a grep, a budget, a duration). */
  extra: string[];
  /** It names its target and sends nothing (coverage): the conditions about sending do not apply. */
  sendsNothing?: boolean;
  /** It judges a second deployment (compare): --against-url names it, the same as the target here. */
  against?: boolean;
}

const ROWS: Row[] = [
  { words: ['conform'], extra: ['--grep', 'hotevents', '--workers', '1'] },
  { words: ['fuzz'], extra: ['--max-requests', '40', '--operations', 'hotEvents'] },
  { words: ['compare'], extra: ['--max-requests', '102'], against: true },
  { words: ['drift', 'live'], extra: [] },
  { words: ['load', 'smoke'], name: 'load', extra: ['--duration', '4s'] },
  { words: ['probe', 'rate-limit'], extra: ['--operation', 'answerSearch', '--max-duration', '6s'] },
  { words: ['probe', 'body-limit'], extra: [] },
  { words: ['coverage'], extra: ['--kind', 'cells'], sendsNothing: true },
];

const label = (row: Row) => row.name ?? row.words.join(' ');

let server: ReferenceServer;
let proxy: ArrivalsProxy;
let slow: ArrivalsProxy;
let arrivals = 0;
let slowArrivals = 0;
let dir: string;

before(async () => {
  server = await startReferenceServer({ quiet: true, rateLimit: 1e9 });
  proxy = await startArrivalsProxy(server.url, () => arrivals++);
  // A slow deployment: every answer takes a second, so a run is still going when the signal comes.
  slow = await startArrivalsProxy(server.url, () => slowArrivals++, undefined, { delayMs: 1_000 });
  dir = mkdtempSync(join(tmpdir(), 'kgate-every-command-'));
});
after(async () => {
  proxy.close();
  slow.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The environment of a run: no target or key but the row's, so that nothing of the test's own leaks in. */
function envOf(key: string | undefined): Record<string, string> {
  return { KGATE_BASE_URL: '', KGATE_KEY: key ?? '', KGATE_AGAINST_KEY: '', KGATE_CONFORM_OPTIONS: '', CI: '1' };
}

/** Runs the row against `url` (its second deployment too) with the test's arguments. */
function run(row: Row, url: string | undefined, args: string[], key: string | undefined, cwd?: string) {
  const target = url === undefined ? [] : ['--base-url', url, ...(row.against ? ['--against-url', url] : [])];
  return runKgate([...row.words, ...target, ...row.extra, ...args], {
    env: envOf(key),
    ...(cwd ? { cwd } : {}),
    timeoutMs: 60_000,
  });
}

/** The lines a run printed, both streams. */
const linesOf = (result: { stdout: string; stderr: string }) =>
  `${result.stdout}\n${result.stderr}`.split('\n').filter((line) => line.trim() !== '');

/** A stop: exit 2 and a line (not a stack) that matches `want`. */
function assertStop(result: { code: number | null; stdout: string; stderr: string }, want: RegExp, what: string) {
  assert.equal(result.code, 2, `${what}: exit 2\n${result.stdout}\n${result.stderr}`);
  const found = result.stderr.split('\n').find((line) => want.test(line));
  assert.ok(found, `${what}: a line matching ${want}\n${result.stderr}`);
  assert.doesNotMatch(result.stderr, /^\s+at /m, `${what}: no stack trace`);
}

test('every command that takes --base-url is in the table: none skips the door', async () => {
  const taking: string[] = [];
  for (const [name, entry] of Object.entries(COMMANDS)) {
    const command = await entry.load();
    if (command.options && 'base-url' in command.options) taking.push(name);
    for (const [sub, spec] of Object.entries(command.subcommands ?? {}))
      if ('base-url' in spec.options) taking.push(`${name} ${sub}`);
  }
  assert.deepEqual(taking.sort(), ROWS.map(label).sort());
});

describe('every command, every condition', () => {
  for (const row of ROWS) {
    describe(`kgate ${label(row)}`, () => {
      test('a wrong key: one line naming the key, exit 2, within the preflight', async (t) => {
        if (row.sendsNothing) return t.skip('it sends nothing: no key is asked');
        const before = arrivals;
        const result = await run(row, proxy.url, [], 'wrong-key-123');
        assertStop(result, /refused the key: every API answered 401 to the key/, 'wrong key');
        assert.ok(arrivals - before <= 8, `a handful of requests: ${arrivals - before}`);
      });

      test('no key: one line naming the variable, exit 2, nothing sent', async (t) => {
        if (row.sendsNothing) return t.skip('it sends nothing: no key is asked');
        const before = arrivals;
        const result = await run(row, proxy.url, [], undefined);
        assertStop(result, /no subscription key for http:\/\/127\.0\.0\.1:\d+: KGATE_KEY is not set/, 'no key');
        assert.equal(arrivals - before, 0, 'nothing sent');
      });

      test('a target named only in the configuration file is the one it talks to, and says so first', async () => {
        const cwd = mkdtempSync(join(dir, 'config-'));
        writeFileSync(
          join(cwd, 'kgate.config.json'),
          JSON.stringify({ baseUrl: proxy.url, ...(row.against ? { againstUrl: proxy.url } : {}) }),
        );
        const before = arrivals;
        const result = await run(row, undefined, [], 'wrong-key-123', cwd);
        const first = linesOf(result)[0] ?? '';
        assert.match(
          first,
          new RegExp(`^kgate ${label(row)}: target: ${proxy.url} \\(from baseUrl in kgate\\.config\\.json\\)`),
          `the first line: ${result.stdout}${result.stderr}`,
        );
        if (row.sendsNothing) {
          assert.equal(result.code, 0, result.stderr);
          assert.equal(arrivals - before, 0, 'nothing sent');
        } else {
          // The wrong key is refused there, by the configured target: it was asked.
          assertStop(result, /refused the key/, 'configured target');
          assert.ok(arrivals - before > 0, 'the configured target was asked');
        }
      });

      test('a report folder that cannot be made: one line naming it, exit 2, nothing sent', async (t) => {
        if (row.sendsNothing) return t.skip('it writes no report folder');
        const file = join(dir, `a-file-${row.words.join('-')}`);
        writeFileSync(file, '');
        for (const folder of [join(file, 'reports'), '/proc/kgate-cannot-be-here']) {
          const before = arrivals;
          const result = await run(row, proxy.url, ['--report-dir', folder], server.keys.full);
          assertStop(
            result,
            new RegExp(
              `cannot write this run's reports to ${folder.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} \\((ENOTDIR|ENOENT|EACCES|EROFS)`,
            ),
            folder,
          );
          assert.equal(arrivals - before, 0, `${folder}: nothing sent`);
        }
      });

      test('a base URL whose prefix routes nothing: one line saying so, exit 2, within the preflight', async (t) => {
        if (row.sendsNothing) return t.skip('it sends nothing');
        const before = arrivals;
        const result = await run(row, `${proxy.url}/api`, [], server.keys.full);
        assertStop(result, /no path of the interface is routed there \(every API answered 404/, 'prefix');
        assert.ok(arrivals - before <= 8, `a handful of requests: ${arrivals - before}`);
      });

      test('an unreachable target: one line naming it, exit 2', async (t) => {
        if (row.sendsNothing) return t.skip('it sends nothing');
        const result = await run(row, 'http://127.0.0.1:9', [], server.keys.full);
        assertStop(result, /cannot reach http:\/\/127\.0\.0\.1:9 \(from --base-url\)/, 'unreachable');
      });

      test('SIGTERM mid-run stops every process it started, marks its folder interrupted, exit 143', async (t) => {
        if (row.sendsNothing) return t.skip('it sends nothing and starts nothing');
        const reports = join(dir, `stopped-${row.words.join('-')}`);
        const stopped = await stopMidRun(row, slow.url, reports);
        assert.equal(stopped.code, 143, stopped.output);
        assert.ok(stopped.stoppedInMs < 15_000, `stopped within the grace: ${stopped.stoppedInMs} ms`);
        assert.deepEqual(stopped.alive, [], 'no process it started outlives it');
        const summary = JSON.parse(readFileSync(join(reports, 'summary.json'), 'utf8')) as {
          verdict: string;
          exitCode: number;
        };
        assert.deepEqual([summary.verdict, summary.exitCode], ['interrupted', 143], 'summary.json');
        assert.match(readFileSync(join(reports, 'summary.md'), 'utf8'), /^# kgate .*: INTERRUPTED/);
        assert.match(readFileSync(join(reports, 'report.html'), 'utf8'), /INTERRUPTED/);
        assert.match(stopped.output, /INTERRUPTED by SIGTERM: no verdict/);
        assert.doesNotMatch(stopped.output, /PASS|defect of kgate/, 'neither a verdict nor a defect');
      });
    });
  }
});

test('SIGTERM and SIGINT mid-run on the embedded reference server stop it and every worker too', async () => {
  // Paced, so that each is still going when the signal comes.
  for (const [row, extra, signal, code] of [
    [ROWS[0]!, ['--max-rps', '20'], 'SIGTERM', 143],
    [ROWS[1]!, ['--max-rps', '20', '--max-requests', '100000'], 'SIGINT', 130],
  ] as const) {
    const reports = join(dir, `embedded-${row.words.join('-')}`);
    const earlier = scratchLeft(reports);
    const stopped = await stopMidRun({ ...row, extra: [...extra] }, undefined, reports, signal);
    assert.equal(stopped.code, code, stopped.output);
    assert.deepEqual(stopped.alive, [], `${label(row)}: no process it started outlives it`);
    assert.equal(JSON.parse(readFileSync(join(reports, 'summary.json'), 'utf8')).verdict, 'interrupted');
    const left = scratchLeft(reports).filter((name) => !earlier.includes(name));
    assert.deepEqual(left, [], `${label(row)}: its scratch folder goes with its processes`);
  }
});

/** The process ids below `pid`: its children, theirs, and so on (Linux's /proc). */
function descendants(pid: number): number[] {
  const parents = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(name)]);
    } catch {
      // Gone while read.
    }
  }
  const found: number[] = [];
  const walk = (of: number) => {
    for (const child of parents.get(of) ?? []) {
      found.push(child);
      walk(child);
    }
  };
  walk(pid);
  return found;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
  } catch {
    return false;
  }
};

/**
 * Starts the row against `url` (the embedded server when undefined) with its folder `reports`,
 * waits until the run is under way (requests past the preflight arrived, or a few seconds on the
 * embedded server), notes every process it started, sends `signal`, and reports how it ended.
 */
async function stopMidRun(
  row: Row,
  url: string | undefined,
  reports: string,
  signal: 'SIGTERM' | 'SIGINT' = 'SIGTERM',
): Promise<{ code: number | null; stoppedInMs: number; alive: number[]; output: string }> {
  mkdirSync(reports, { recursive: true });
  const target = url === undefined ? [] : ['--base-url', url, ...(row.against ? ['--against-url', url] : [])];
  const child = spawn(
    process.execPath,
    [join(ROOT, 'bin/kgate.mjs'), ...row.words, ...target, ...row.extra, '--report-dir', reports],
    {
      env: { ...process.env, ...envOf(server.keys.full) },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const ended = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const from = slowArrivals;
  const deadline = Date.now() + 45_000;
  // Under way: past the preflight's few requests on a deployment; the embedded run, once its line says it started.
  while (Date.now() < deadline) {
    if (url !== undefined ? slowArrivals - from >= 6 : /listens at http/.test(output)) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (url === undefined) await new Promise((resolve) => setTimeout(resolve, 2_500));
  const started = descendants(child.pid!);
  const sentAt = Date.now();
  child.kill(signal);
  const code = await Promise.race([ended, new Promise<null>((resolve) => setTimeout(() => resolve(null), 30_000))]);
  const stoppedInMs = Date.now() - sentAt;
  if (code === null) child.kill('SIGKILL');
  // What it started is stopped when it exits; a moment for the kernel to reap what was killed last.
  await new Promise((resolve) => setTimeout(resolve, 500));
  return { code, stoppedInMs, alive: started.filter(alive), output: `${output}\n(started: ${started.join(', ')})` };
}
