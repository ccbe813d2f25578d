// The cost of `kgate compare`: one comparison of two deployments against what a team would
// otherwise run, `kgate conform` once against each of them (two runs, one after the other), both
// as child processes against reference servers in this process. Reported: wall time and requests
// of each, and their ratios; then the same comparison with --latency (its default 40 interleaved
// pairs per operation at 50 pairs/s). The comparison answers another question than conform (what
// the release changes, not whether each deployment conforms); the ratio says what that answer costs.
// KGATE_BENCH_COMPARE_ROUNDS (default 1) rounds; medians are reported.
import { mkdirSync, writeFileSync } from 'node:fs';
import { startReferenceServer } from '../reference/index.ts';
import { kgateJson, median, ROOT } from './conform-runs.ts';

const ROUNDS = Number(process.env.KGATE_BENCH_COMPARE_ROUNDS ?? 1);

interface Timed {
  seconds: number;
  exitCode: number | null;
  requests: number;
}

async function kgate(
  args: string[],
  key: string,
  requestsOf: (json: Record<string, unknown>) => number,
): Promise<Timed> {
  const { seconds, exitCode, json } = await kgateJson(['bin/kgate.mjs', ...args], {
    env: { KGATE_KEY: key, KGATE_AGAINST_KEY: '' },
  });
  let requests = 0;
  try {
    requests = requestsOf(json);
  } catch {
    requests = 0;
  }
  return { seconds, exitCode, requests };
}

const [candidate, current] = await Promise.all([
  startReferenceServer({ quiet: true, rateLimit: 1e9 }),
  startReferenceServer({ quiet: true, rateLimit: 1e9 }),
]);
const conformRequests = (json: Record<string, unknown>) => Number(json.requests ?? 0);
const compareRequests = (json: Record<string, unknown>) => Number((json.requests as { sent: number }).sent);
const twice: Timed[] = [];
const compared: Timed[] = [];
const withLatency: Timed[] = [];
try {
  for (let round = 0; round < ROUNDS; round++) {
    const a = await kgate(
      ['conform', '--base-url', candidate.url, '--report-dir', 'reports/bench/compare-conform-a'],
      candidate.keys.full,
      conformRequests,
    );
    const b = await kgate(
      ['conform', '--base-url', current.url, '--report-dir', 'reports/bench/compare-conform-b'],
      current.keys.full,
      conformRequests,
    );
    twice.push({
      seconds: a.seconds + b.seconds,
      exitCode: Math.max(a.exitCode ?? 9, b.exitCode ?? 9),
      requests: a.requests + b.requests,
    });
    const args = [
      'compare',
      '--base-url',
      candidate.url,
      '--against-url',
      current.url,
      '--report-dir',
      'reports/bench/compare',
    ];
    compared.push(await kgate(args, candidate.keys.full, compareRequests));
    withLatency.push(await kgate([...args, '--latency'], candidate.keys.full, compareRequests));
  }
} finally {
  await Promise.all([candidate.close(), current.close()]);
}
const figure = (runs: Timed[]) => ({
  seconds: Number(median(runs.map((run) => run.seconds)).toFixed(2)),
  requests: median(runs.map((run) => run.requests)),
  exitCodes: runs.map((run) => run.exitCode),
});
const baseline = figure(twice);
const compare = figure(compared);
const latency = figure(withLatency);
const ratio = (run: { seconds: number; requests: number }) => ({
  time: Number((run.seconds / baseline.seconds).toFixed(2)),
  requests: Number((run.requests / baseline.requests).toFixed(2)),
});
console.log(
  `baseline, kgate conform against each deployment: ${baseline.seconds} s, ${baseline.requests} requests (exit ${baseline.exitCodes.join('/')})`,
);
console.log(
  `kgate compare (default: battery, second pages, 120 generated): ${compare.seconds} s, ${compare.requests} requests = ${ratio(compare).time} x the time, ${ratio(compare).requests} x the requests (exit ${compare.exitCodes.join('/')})`,
);
console.log(
  `kgate compare --latency (40 pairs per operation at 50/s): ${latency.seconds} s, ${latency.requests} requests = ${ratio(latency).time} x the time, ${ratio(latency).requests} x the requests (exit ${latency.exitCodes.join('/')})`,
);
mkdirSync(`${ROOT}reports/bench`, { recursive: true });
writeFileSync(
  `${ROOT}reports/bench/compare.json`,
  `${JSON.stringify({ rounds: ROUNDS, baseline, compare, latency, ratios: { compare: ratio(compare), latency: ratio(latency) } }, null, 2)}\n`,
);
const ok =
  baseline.exitCodes.every((code) => code === 0) &&
  [...compare.exitCodes, ...latency.exitCodes].every((code) => code === 0);
if (!ok) {
  console.error('bench: a run did not pass (identical deployments must compare alike and conform)');
  process.exit(1);
}
