// Generated requests per second of `kgate fuzz`'s engine against the reference server, over the
// raw request rate of autocannon sending the very same requests to the same server, measured in
// the same run: fresh server child processes for every measurement (so neither side finds the
// other's answers cached), the same number of requests, the same number in flight, interleaved
// rounds, medians reported. Every round is also the proof: 20,000 generated cases, no finding.
// Targets (issue 10): at least 1,000 cases/s, and at least half the raw rate.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { Api } from '../contracts/api.ts';
import { allocate } from '../contracts/generative/cases.ts';
import { callOptionsOf } from '../contracts/generative/engine.ts';
import { poolsFor } from '../contracts/generative/pools.ts';
import type { ValuePools } from '../contracts/generative/values.ts';
import { getOperation, OPERATION_IDS } from '../openapi/spec.ts';
import { Discovery } from '../run/discovery.ts';
import { FUZZ_CONCURRENCY, fuzzCases, runFuzz } from '../run/fuzz.ts';
import { median } from './conform-runs.ts';

const ROUND_CASES = Number(process.env.KGATE_BENCH_FUZZ_CASES ?? 20_000);
const ROUNDS = 3;
const SEED = 20_261_123;
const TARGET_CASES_PER_S = 1_000;
const TARGET_RATIO = 0.5;

async function child(): Promise<void> {
  const { startReferenceServer } = await import('../reference/index.ts');
  // The rate limit is lifted as `kgate fuzz` lifts it for its embedded server.
  const server = await startReferenceServer({ rateLimit: 1e9, quiet: true });
  console.log(JSON.stringify({ url: server.url, key: server.keys.full }));
}

interface Server {
  process: ChildProcess;
  url: string;
  key: string;
}

function startServer(): Promise<Server> {
  const proc = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--child'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    createInterface({ input: proc.stdout! }).once('line', (line) => resolve({ process: proc, ...JSON.parse(line) }));
    proc.once('exit', (code) => reject(new Error(`reference server exited with ${code}`)));
  });
}

function stop(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.process.once('exit', () => resolve());
    server.process.kill('SIGTERM');
  });
}

const reports = mkdtempSync(join(tmpdir(), 'kgate-fuzz-bench-'));
let runs = 0;

/** One fuzz run of `cases` generated requests; its cases per second over its own sending time. */
async function fuzzRate(cases: number): Promise<{ rate: number; findings: number; sent: number }> {
  const server = await startServer();
  try {
    const result = await runFuzz({
      baseUrl: server.url,
      key: server.key,
      operations: OPERATION_IDS,
      maxRequests: cases,
      durationMs: 600_000,
      seed: SEED,
      timeoutMs: 10_000,
      maxBytes: 8 * 1024 * 1024,
      reportDir: join(reports, `run-${runs++}`),
    });
    return { rate: result.casesPerSecond, findings: result.findings.length, sent: result.cases.total };
  } finally {
    await stop(server);
  }
}

/** The same generated requests, as autocannon sends them (chains unresolved, no judging). */
async function sameRequests(cases: number): Promise<autocannon.Request[]> {
  const server = await startServer();
  try {
    const api = new Api({
      baseUrl: server.url,
      keys: { full: server.key },
      timeoutMs: 10_000,
      maxBytes: 8 * 1024 * 1024,
      disabledChecks: new Set(),
      judge: false,
    });
    const discovery = new Discovery(api);
    const pools = new Map<string, ValuePools>();
    for (const id of OPERATION_IDS) pools.set(id, await poolsFor(id, discovery));
    return [...fuzzCases(SEED, allocate(cases, OPERATION_IDS), pools)].map((c) => {
      const request = api.build(getOperation(c.operationId)!, callOptionsOf(c));
      return {
        method: request.method,
        path: request.url.slice(server.url.length),
        headers: request.headers,
        ...(request.body === undefined ? {} : { body: request.body }),
      };
    });
  } finally {
    await stop(server);
  }
}

/** autocannon sending each request once, as many in flight as the engine keeps. */
async function rawRate(requests: autocannon.Request[]): Promise<number> {
  const server = await startServer();
  try {
    const result = await autocannon({
      url: server.url,
      connections: FUZZ_CONCURRENCY,
      amount: requests.length,
      requests,
      timeout: 10,
    });
    return Math.round(result.requests.total / (result.duration || 1));
  } finally {
    await stop(server);
  }
}

async function main(): Promise<void> {
  const requests = await sameRequests(ROUND_CASES);
  console.log(`${requests.length} generated requests, ${FUZZ_CONCURRENCY} in flight, ${ROUNDS} interleaved rounds`);
  await fuzzRate(2_000); // warm-up of this process: JIT of the engine, the validators and the generators
  const fuzz: number[] = [];
  const raw: number[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const run = await fuzzRate(ROUND_CASES);
    if (run.findings > 0 || run.sent < ROUND_CASES * 0.99) {
      throw new Error(`round ${round}: ${run.findings} finding(s) in ${run.sent} cases on the clean reference server`);
    }
    fuzz.push(run.rate);
    raw.push(await rawRate(requests));
    console.log(
      `round ${round}: kgate fuzz ${fuzz.at(-1)} cases/s (${run.sent} cases, no finding), autocannon ${raw.at(-1)} req/s`,
    );
  }
  const [fuzzMedian, rawMedian] = [median(fuzz), median(raw)];
  const ratio = Number((fuzzMedian / rawMedian).toFixed(3));
  console.log(
    `kgate fuzz ${fuzzMedian} cases/s (target >= ${TARGET_CASES_PER_S}); autocannon ${rawMedian} req/s; ratio ${ratio} (target >= ${TARGET_RATIO})`,
  );
  mkdirSync('reports/bench', { recursive: true });
  writeFileSync(
    'reports/bench/fuzz.json',
    `${JSON.stringify(
      {
        casesPerRound: ROUND_CASES,
        rounds: ROUNDS,
        inFlight: FUZZ_CONCURRENCY,
        fuzzCasesPerSecond: fuzz,
        rawRequestsPerSecond: raw,
        fuzzMedian,
        rawMedian,
        ratio,
        targets: { casesPerSecond: TARGET_CASES_PER_S, ratio: TARGET_RATIO },
        meetsTargets: fuzzMedian >= TARGET_CASES_PER_S && ratio >= TARGET_RATIO,
        proof: `${ROUNDS} x ${ROUND_CASES} generated cases on the clean reference server, no finding`,
      },
      null,
      2,
    )}\n`,
  );
  rmSync(reports, { recursive: true, force: true });
}

if (process.argv.includes('--child')) await child();
else await main();
