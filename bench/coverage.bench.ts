// What the coverage plan costs and what it catches, each against a baseline in the same run:
// - requests: the gate as it drew its generated requests (`--generate 493`, one round, every fixed
//   test in full) against the planned gate (the default), both against a reference server in
//   another process (`kgate serve`), interleaved in rounds; the planned gate judges every item once.
//   Target: at most 0.75x the requests;
// - a ledger at each budget (--max-requests 60, 100, 200), against the same server: real runs one
//   after another until every item of `kgate coverage` was judged (the full cycle), each run's
//   requests (the key preflight included) and items judged, the runs the cycle took against what
//   the first run announced, and what the cycle sent against one unbudgeted run. Targets at 100:
//   every item within 9 runs, at most 1.4x one unbudgeted run;
// - what each series catches, and when: the fault sweep following the plan of each of its runs
//   (the faults not caught yet), and the sweep of the unbudgeted gate. A fault counts as caught
//   once a check that must catch it reported it (the run fails on it); the rate-limit faults aside
//   (a budgeted run has no bursts). Target: every input-triggered fault within one cycle at 100;
// - the real service's published limits (facts.md: interpret about 3/s, evaluate 1/s,
//   calchistogram 6/min) with --max-duration 10m, against the server in another process: the run
//   ends within 10 minutes, and what it announced (requests, time) is within 10 % of what happened.
// KGATE_BENCH_COVERAGE_ROUNDS (default 2) rounds; KGATE_BENCH_COVERAGE_PACED=0 leaves out the 10-minute
// paced run, KGATE_BENCH_COVERAGE_SWEEP=0 the sweeps, KGATE_BENCH_COVERAGE_BUDGETS the budgets (60,100,200).
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { runSweep } from '../proof/fault-sweep.ts';
import { FAULT_TABLE } from '../proof/fault-table.ts';
import type { RunSummary } from '../reporting/summary.ts';
import type { Ledger } from '../run/ledger.ts';
import { referenceKeyEnv } from '../scripts/run-process.ts';
import { ROOT, type ServedKeys, serveApart } from './conform-runs.ts';

const OUT = `${ROOT}reports/bench/coverage`;
const ROUNDS = Number(process.env.KGATE_BENCH_COVERAGE_ROUNDS ?? 2);
const PACED = process.env.KGATE_BENCH_COVERAGE_PACED !== '0';
const SWEEP = process.env.KGATE_BENCH_COVERAGE_SWEEP !== '0';
const BUDGETS = (process.env.KGATE_BENCH_COVERAGE_BUDGETS ?? '60,100,200').split(',').filter(Boolean).map(Number);
const REQUESTS_TARGET = 0.75;
const ESTIMATE_TOLERANCE = 0.1;
/** At --max-requests 100: every item within this many runs, and at most this much of one unbudgeted run in all. */
const CYCLE_TARGET = { budget: 100, runs: 9, ratio: 1.4 };
/** A series stops here if it has not judged every item by then. */
const MOST_RUNS = 30;
const PUBLISHED_ARGS = [
  '--max-rps',
  '3',
  '--max-rps-by-path',
  '/academic/v1.0/interpret=3,/academic/v1.0/evaluate=1,/academic/v1.0/calchistogram=0.1',
  '--max-duration',
  '10m',
];

interface Run {
  seconds: number;
  exitCode: number | null;
  summary?: RunSummary;
  stderr: string;
}

/** `kgate conform --json` against the server apart. */
function conform(url: string, keys: ServedKeys, args: string[], name: string): Promise<Run> {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    ['bin/kgate.mjs', 'conform', '--json', '--base-url', url, '--report-dir', `${OUT}/${name}`, ...args],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        KGATE_BASE_URL: '',
        GITHUB_STEP_SUMMARY: '',
        KGATE_CONFORM_OPTIONS: '',
        ...referenceKeyEnv(keys),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  return new Promise((resolve) => {
    child.on('close', (exitCode) => {
      let summary: RunSummary | undefined;
      try {
        summary = JSON.parse(stdout) as RunSummary;
      } catch {
        // The exit code says why.
      }
      resolve({ seconds: (performance.now() - started) / 1000, exitCode, summary, stderr });
    });
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

mkdirSync(OUT, { recursive: true });
const figures: Record<string, unknown> = {};
const series: {
  budget: number;
  runs: { sent: number; judged: number; since: number; verdict?: string; announced: number }[];
  items: number;
  cycle?: number;
  announcedCycle?: number;
  sent: number;
  ratio: number;
  announcedError: number;
}[] = [];
const apart = await serveApart();
try {
  // 1. Requests: the drawn gate of before against the planned one, interleaved.
  const drawn: number[] = [];
  const planned: number[] = [];
  let judged = { judged: 0, items: 0 };
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? ['draw', 'plan'] : ['plan', 'draw'];
    for (const which of order) {
      const run = await conform(
        apart.url,
        apart.keys,
        which === 'draw' ? ['--generate', '493'] : [],
        `${which}-${round}`,
      );
      if (run.exitCode !== 0 || !run.summary)
        throw new Error(`the ${which} run did not pass: ${run.stderr.slice(-2000)}`);
      (which === 'draw' ? drawn : planned).push(run.summary.requests ?? 0);
      if (which === 'plan') judged = { judged: run.summary.coverage!.judged, items: run.summary.coverage!.items };
    }
  }
  const ratio = median(planned) / median(drawn);
  figures.requests = { drawn, planned, ratio, target: REQUESTS_TARGET, every: judged };
  console.log(
    `requests against a server in another process: the gate as it drew (--generate 493) ${median(drawn)} (${drawn.join(', ')}), planned ${median(planned)} (${planned.join(', ')}): ${ratio.toFixed(2)}x (target <= ${REQUESTS_TARGET}); the planned gate judged ${judged.judged} of ${judged.items} items`,
  );

  // 2. The published limits with a 10 minute budget.
  if (PACED) {
    const run = await conform(apart.url, apart.keys, PUBLISHED_ARGS, 'published-limits');
    const announced = /about (\d+) requests.*?about (?:(\d+) min)? ?(?:(\d+) s)?/.exec(run.stderr);
    const requests = Number(announced?.[1]);
    const seconds = Number(announced?.[2] ?? 0) * 60 + Number(announced?.[3] ?? 0);
    const sent = run.summary?.requests ?? 0;
    const took = (run.summary?.durationMs ?? 0) / 1000;
    figures.published = {
      exitCode: run.exitCode,
      wallSeconds: run.seconds,
      runSeconds: took,
      announced: { requests, seconds },
      sent,
      requestError: sent / requests - 1,
      timeError: took / seconds - 1,
      withinTolerance:
        Math.abs(sent / requests - 1) <= ESTIMATE_TOLERANCE && Math.abs(took / seconds - 1) <= ESTIMATE_TOLERANCE,
      withinTenMinutes: took <= 600,
      coverage: run.summary?.coverage && { judged: run.summary.coverage.judged, items: run.summary.coverage.items },
      verdict: run.summary?.verdict,
    };
    console.log(
      `published limits, --max-duration 10m: exit ${run.exitCode}, ${run.summary?.verdict}; the run took ${took.toFixed(0)} s (${run.seconds.toFixed(0)} s with the CLI's start), announced ${seconds} s (${((took / seconds - 1) * 100).toFixed(1)} %); ${sent} requests, announced ${requests} (${((sent / requests - 1) * 100).toFixed(1)} %); ${run.summary?.coverage?.judged} of ${run.summary?.coverage?.items} items judged`,
    );
  }

  // 3. A ledger at each budget: runs until every item was judged. The unbudgeted run's requests with
  // its key preflight (unpaced, its four questions go at once), as the series counts theirs.
  const unbudgeted = median(planned) + 4;
  figures.unbudgeted = { requests: unbudgeted, items: judged.items };
  for (const budget of BUDGETS) {
    const ledger = `${OUT}/ledger-${budget}.json`;
    rmSync(ledger, { force: true });
    const runs: { sent: number; judged: number; since: number; verdict?: string; announced: number }[] = [];
    let announcedCycle: number | undefined;
    let items = 0;
    for (let n = 1; n <= MOST_RUNS; n++) {
      const run = await conform(
        apart.url,
        apart.keys,
        ['--max-requests', String(budget), '--ledger', ledger],
        `series-${budget}-${n}`,
      );
      const coverage = run.summary?.coverage;
      if (!coverage) throw new Error(`run ${n} at ${budget} gave no summary: ${run.stderr.slice(-2000)}`);
      const kept = JSON.parse(readFileSync(ledger, 'utf8')) as Ledger;
      announcedCycle ??= coverage.cycle;
      items = coverage.items;
      runs.push({
        sent: kept.runs.at(-1)?.requests ?? 0,
        judged: coverage.judged,
        since: coverage.ledger?.judged ?? 0,
        verdict: run.summary?.verdict,
        announced: Number(/about (\d+) requests/.exec(run.stderr)?.[1]),
      });
      if (coverage.never === 0) break;
    }
    const complete = runs.at(-1)!.since === items;
    const sent = runs.reduce((sum, run) => sum + run.sent, 0);
    series.push({
      budget,
      runs,
      items,
      cycle: complete ? runs.length : undefined,
      announcedCycle,
      sent,
      ratio: sent / unbudgeted,
      announcedError: Math.max(...runs.map((run) => Math.abs(run.sent / run.announced - 1))),
    });
    console.log(
      `--max-requests ${budget}: ${budget === CYCLE_TARGET.budget ? `${complete && runs.length <= CYCLE_TARGET.runs && sent <= CYCLE_TARGET.ratio * unbudgeted ? 'met' : 'NOT met'} (target: every item within ${CYCLE_TARGET.runs} runs, at most ${CYCLE_TARGET.ratio}x); ` : ''}${complete ? `every item of ${items} judged in ${runs.length} runs` : `${runs.at(-1)!.since} of ${items} judged in ${runs.length} runs`} (announced about ${announcedCycle}); requests a run ${runs.map((run) => run.sent).join(', ')}; items judged a run ${runs.map((run) => run.judged).join(', ')}; the cycle sent ${sent}, ${(sent / unbudgeted).toFixed(2)}x one unbudgeted run (${unbudgeted}); announced within ${(100 * Math.max(...runs.map((run) => Math.abs(run.sent / run.announced - 1)))).toFixed(1)} % of what each run sent`,
    );
  }
  figures.series = series;
} finally {
  apart.child.kill();
}

// 4. What each series catches, and when: the sweep following the plan of each of its runs.
if (SWEEP) {
  const base = await runSweep({ reportDir: `${OUT}/sweep-planned` });
  figures.sweep = { caught: base.caught, total: base.total };
  console.log(`the fault sweep of the planned gate: ${base.caught} / ${base.total} faults caught`);
  // The rate-limit faults: caught by the bursts (rate-limit-signalled), or only on the 429 a burst
  // brings about (its shape: answersearch-429-*), which a budgeted run never sends. An exhausted key
  // answered 429 is no rate limit: quota-exhausted-is-403 judges it.
  const rateLimit = (fault: string) =>
    FAULT_TABLE[fault]?.catches.includes('rate-limit-signalled') === true ||
    /^(answersearch|urlpreview)-429-/.test(fault);
  const mustFail = base.faults.filter(
    (verdict) => ['forbidden', 'hostile'].includes(verdict.deviation) && !rateLimit(verdict.fault),
  );
  const inputTriggered = new Set(
    mustFail.filter((verdict) => FAULT_TABLE[verdict.fault]?.generative).map((v) => v.fault),
  );
  const caughtUnbudgeted = mustFail.filter((verdict) => verdict.tripped.length > 0).length;
  const rows: Record<string, unknown>[] = [
    { budget: 'unbudgeted', runs: 1, caughtByRun: [caughtUnbudgeted], total: mustFail.length },
  ];
  for (const entry of series) {
    const left = new Set(mustFail.map((verdict) => verdict.fault));
    const caughtIn: Record<string, number> = {};
    for (let n = 1; n <= entry.runs.length && left.size > 0; n++) {
      const result = await runSweep({
        reportDir: `${OUT}/sweep-${entry.budget}-${n}`,
        planFile: `${OUT}/series-${entry.budget}-${n}/plan.json`,
        only: [...left],
      });
      for (const verdict of result.faults)
        if (verdict.tripped.length > 0) {
          caughtIn[verdict.fault] = n;
          left.delete(verdict.fault);
        }
    }
    const byRun = entry.runs.map((_, n) => Object.values(caughtIn).filter((run) => run === n + 1).length);
    const inputs = [...inputTriggered];
    const lastInput = Math.max(0, ...inputs.map((fault) => caughtIn[fault] ?? Number.POSITIVE_INFINITY));
    rows.push({
      budget: entry.budget,
      runs: entry.runs.length,
      caughtByRun: byRun,
      total: mustFail.length,
      missed: [...left],
      inputTriggered: {
        total: inputs.length,
        caught: inputs.filter((fault) => caughtIn[fault]).length,
        lastRun: lastInput,
      },
    });
    console.log(
      `--max-requests ${entry.budget}: faults that must fail caught in runs 1..${entry.runs.length}: ${byRun.join(', ')} (${mustFail.length - left.size} of ${mustFail.length}${left.size ? `; never: ${[...left].join(', ')}` : ''}); input-triggered: ${inputs.filter((fault) => caughtIn[fault]).length} of ${inputs.length}, the last in run ${Number.isFinite(lastInput) ? lastInput : 'never'}`,
    );
  }
  figures.caught = rows;
  console.log(`unbudgeted: ${caughtUnbudgeted} of ${mustFail.length} faults that must fail caught in its one run`);
}
writeFileSync(`${ROOT}reports/bench/coverage.json`, `${JSON.stringify(figures, null, 2)}\n`);
