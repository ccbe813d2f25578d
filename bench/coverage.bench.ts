// What the coverage plan costs and what it catches, each against a baseline in the same run:
// - requests: the gate as it drew its generated requests (`--generate 493`, one round, every fixed
//   test in full) against the planned gate (the default), both against a reference server in
//   another process (`kgate serve`), interleaved in rounds; the planned gate judges every item once.
//   Target: at most 0.75x the requests;
// - the fault sweep of the planned gate: every fault still caught;
// - the real service's published limits (facts.md: interpret about 3/s, evaluate 1/s,
//   calchistogram 6/min) with --max-duration 10m, against the server in another process: the run
//   ends within 10 minutes, and what it announced (requests, time) is within 10 % of what happened;
// - what that budgeted plan catches: the fault sweep following the plan (unpaced: the pace changes
//   when requests leave, not what they are), once per run of a ledger over three runs (the history
//   of runs 2 and 3 from the items the runs before planned): every fault the fixed battery catches
//   caught in the first run (the rate-limit faults aside: a paced run has no bursts), every
//   input-triggered fault within three.
// KGATE_BENCH_COVERAGE_ROUNDS (default 2) rounds; KGATE_BENCH_COVERAGE_PACED=0 leaves out the 10-minute
// paced run, KGATE_BENCH_COVERAGE_SWEEP=0 the sweeps.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { runSweep, type SweepResult } from '../proof/fault-sweep.ts';
import { FAULT_TABLE } from '../proof/fault-table.ts';
import type { RunSummary } from '../reporting/summary.ts';
import { type ItemHistory, type Limits, type PricedPlan, planRun } from '../run/budget.ts';
import { readConformOptions } from '../run/options.ts';
import { referenceRefused, revealingItems } from '../run/plan.ts';
import { selectedTests } from '../run/selection.ts';
import { referenceKeyEnv } from '../scripts/run-process.ts';
import { ROOT, type ServedKeys, serveApart } from './conform-runs.ts';

const OUT = `${ROOT}reports/bench/coverage`;
const ROUNDS = Number(process.env.KGATE_BENCH_COVERAGE_ROUNDS ?? 2);
const PACED = process.env.KGATE_BENCH_COVERAGE_PACED !== '0';
const SWEEP = process.env.KGATE_BENCH_COVERAGE_SWEEP !== '0';
const REQUESTS_TARGET = 0.75;
const ESTIMATE_TOLERANCE = 0.1;
const PUBLISHED: Limits = {
  maxRps: 3,
  maxRpsByPath: {
    '/academic/v1.0/interpret': 3,
    '/academic/v1.0/evaluate': 1,
    '/academic/v1.0/calchistogram': 0.1,
  },
};
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
} finally {
  apart.child.kill();
}

// 3. What the budgeted plan catches, over three runs of a ledger.
if (SWEEP) {
  const base = await runSweep({ reportDir: `${OUT}/sweep-planned` });
  figures.sweep = { caught: base.caught, total: base.total };
  console.log(`the fault sweep of the planned gate: ${base.caught} / ${base.total} faults caught`);
  const selected = selectedTests({ ...readConformOptions('{}', true), rateLimit: false, embedded: false });
  const plans: PricedPlan[] = [];
  const history = new Map<string, ItemHistory>();
  const results: SweepResult[] = [];
  for (let run = 1; run <= 3; run++) {
    const plan = planRun({
      selected,
      limits: { ...PUBLISHED, maxDurationMs: 600_000 },
      seed: 1,
      revealing: revealingItems(),
      refused: referenceRefused(),
      ...(run > 1 ? { history } : {}),
    });
    plans.push(plan);
    const file = `${OUT}/plan-${run}.json`;
    writeFileSync(file, `${JSON.stringify(plan)}\n`);
    results.push(await runSweep({ reportDir: `${OUT}/sweep-run-${run}`, planFile: file }));
    // The ledger after this run: what it planned was judged now, the rest a run older.
    for (const [item, seen] of history) history.set(item, { runsAgo: (seen.runsAgo ?? 0) + 1 });
    for (const item of [...(plan.cells ?? []), ...Object.values(plan.targets).flat()])
      history.set(item, { runsAgo: 0 });
  }
  const caughtIn = (fault: string) =>
    results.findIndex((result) => result.faults.find((verdict) => verdict.fault === fault)?.caught) + 1;
  const verdicts = results[0]!.faults;
  // The rate-limit faults: caught by the bursts (rate-limit-signalled), or only on the 429 a burst
  // brings about (its shape: answersearch-429-*), which a paced run never sends. An exhausted key
  // answered 429 is no rate limit: quota-exhausted-is-403 judges it in every run.
  const rateLimit = (fault: string) =>
    FAULT_TABLE[fault]?.catches.includes('rate-limit-signalled') === true ||
    /^(answersearch|urlpreview)-429-/.test(fault);
  const fixed = verdicts.filter(
    (verdict) =>
      ['forbidden', 'hostile'].includes(verdict.deviation) &&
      !FAULT_TABLE[verdict.fault]?.generative &&
      !rateLimit(verdict.fault),
  );
  const generative = verdicts.filter((verdict) => FAULT_TABLE[verdict.fault]?.generative);
  const fixedMissed = fixed.filter((verdict) => !verdict.caught).map((verdict) => verdict.fault);
  const late = generative.map((verdict) => ({ fault: verdict.fault, run: caughtIn(verdict.fault) }));
  figures.budgeted = {
    plans: plans.map((plan) => ({
      planned: plan.planned,
      notPlanned: plan.notPlanned.length,
      requests: plan.estimate.requests,
      seconds: plan.estimate.seconds,
    })),
    fixedBattery: { caught: fixed.length - fixedMissed.length, total: fixed.length, missed: fixedMissed },
    inputTriggered: {
      byRun: [1, 2, 3].map((run) => late.filter((entry) => entry.run === run).length),
      missed: late.filter((entry) => entry.run === 0).map((entry) => entry.fault),
      total: late.length,
    },
  };
  console.log(
    `the plan at the published limits with --max-duration 10m: ${plans.map((plan) => `${plan.planned} items, ${plan.notPlanned.length} left`).join('; ')}; fixed-battery faults caught in the first run: ${fixed.length - fixedMissed.length} / ${fixed.length}${fixedMissed.length ? ` (missed ${fixedMissed.join(', ')})` : ''}; input-triggered faults caught in run 1, 2, 3: ${[1, 2, 3].map((run) => late.filter((entry) => entry.run === run).length).join(', ')} of ${late.length}${
      late.some((entry) => entry.run === 0)
        ? ` (never: ${late
            .filter((entry) => entry.run === 0)
            .map((entry) => entry.fault)
            .join(', ')})`
        : ''
    }`,
  );
}
writeFileSync(`${ROOT}reports/bench/coverage.json`, `${JSON.stringify(figures, null, 2)}\n`);
