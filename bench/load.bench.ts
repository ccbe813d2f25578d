// Load generator overhead: the raw autocannon CLI and `kgate load --rate max` with 1 % validation,
// run alternately in this session against the same bare node:http target, sending the same
// requests (the steady scenario's mix; the raw CLI reads it from a HAR file).
// Figures: kgate's requests per second as a share of the raw CLI's (median of paired rounds, target
// >= 90 %), the same with kgate reading that HAR file as the team's traffic (`--mix-from`, target
// >= 90 % too: the same target and mix), CPU time per 1,000 requests of each generator, and kgate's peak resident memory
// (target < 300 MB over a 60 s run).
// KGATE_BENCH_LOAD_ROUNDS (default 5) rounds of KGATE_BENCH_LOAD_DURATION seconds (default 5) per
// side; KGATE_BENCH_LOAD_RSS_DURATION=60 adds one kgate run of that length for the memory figure.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { expandMix, runLoad } from '../load/runner.ts';
import { SCENARIOS } from '../load/scenarios.ts';
import { harMix } from '../load/traffic.ts';
import { validateResponse } from '../openapi/validator.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const durationS = Number(process.env.KGATE_BENCH_LOAD_DURATION ?? 5);
const rounds = Number(process.env.KGATE_BENCH_LOAD_ROUNDS ?? 5);
const rssDurationS = process.env.KGATE_BENCH_LOAD_RSS_DURATION
  ? Number(process.env.KGATE_BENCH_LOAD_RSS_DURATION)
  : undefined;
const connections = 10;

// The bare target runs in a child process of its own, so that the generator measured in this
// process (in-process figures) never shares an event loop or CPU accounting with it.
const TARGET = `
const { createServer } = require('node:http');
const BODY = '{"value":[]}';
const server = createServer({ keepAlive: true }, (req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': BODY.length });
    res.end(BODY);
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(String(server.address().port) + '\\n'));
`;
const target = spawn(process.execPath, ['-e', TARGET], { stdio: ['ignore', 'pipe', 'inherit'] });
const port = await new Promise<string>((resolve) =>
  target.stdout.once('data', (chunk) => resolve(String(chunk).trim())),
);
const url = `http://127.0.0.1:${port}`;

interface Measured {
  rps: number;
  total: number;
  peakRssMb: number;
  /** User + system CPU seconds of the generator process. */
  cpuS: number;
}

const TICKS_PER_S = 100;

// Runs a command to completion, sampling its resident memory (VmRSS) every 100 ms.
function measure(
  command: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ stdout: string; peakRssMb: number; cpuS: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let peakKb = 0;
    let cpuTicks = 0;
    const sample = setInterval(() => {
      try {
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
        const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
        peakKb = Math.max(peakKb, kb);
        const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        cpuTicks = Number(fields[11]) + Number(fields[12]);
      } catch {
        // the process has just exited
      }
    }, 100);
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('close', (code) => {
      clearInterval(sample);
      if (code !== 0 && code !== 1) reject(new Error(`${command} exited with ${code}: ${stderr.slice(-500)}`));
      else resolve({ stdout, peakRssMb: Math.round(peakKb / 102.4) / 10, cpuS: cpuTicks / TICKS_PER_S });
    });
  });
}

// Both generators send the same requests: the scenario's mix, expanded exactly as kgate expands
// it, is handed to the raw CLI as a HAR file.
const MIX_REQUESTS = expandMix(SCENARIOS.steady!.mix, 'bench-key-0000', { event_id: 'bench-event' });
const harPath = join(root, 'reports/bench/load-mix.har');
mkdirSync(join(root, 'reports/bench'), { recursive: true });
writeFileSync(
  harPath,
  JSON.stringify({
    log: {
      entries: MIX_REQUESTS.map((request) => ({
        request: {
          method: request.method,
          url: `${url}${request.path}`,
          headers: Object.entries(request.headers ?? {}).map(([name, value]) => ({ name, value: String(value) })),
          ...(request.body !== undefined
            ? { postData: { mimeType: 'application/x-www-form-urlencoded', text: String(request.body) } }
            : {}),
        },
      })),
    },
  }),
);

async function rawAutocannon(): Promise<Measured> {
  const { stdout, peakRssMb, cpuS } = await measure(join(root, 'node_modules/.bin/autocannon'), [
    '-c',
    String(connections),
    '-d',
    String(durationS),
    '--json',
    '--har',
    harPath,
    url,
  ]);
  const result = JSON.parse(stdout) as { requests: { total: number }; duration: number };
  return { rps: result.requests.total / result.duration, total: result.requests.total, peakRssMb, cpuS };
}

async function kgateLoad(seconds: number, extra: string[] = []): Promise<Measured & { latencyP99Ms: number }> {
  const { stdout, peakRssMb, cpuS } = await measure(
    process.execPath,
    [
      join(root, 'bin/kgate.mjs'),
      'load',
      'steady',
      '--max-rps',
      'max',
      '--duration',
      `${seconds}s`,
      '--connections',
      String(connections),
      '--validate-share',
      '1',
      '--base-url',
      url,
      '--report-dir',
      'reports/bench/load-runs',
      '--json',
      ...extra,
    ],
    { KGATE_KEY: 'bench-key-0000', CI: '1' },
  );
  const summary = JSON.parse(stdout) as { result: { completed: number; elapsedS: number; latencyMs: { p99: number } } };
  // The same measure as the raw CLI's: answers over the load window each generator measured
  // itself (autocannon's `duration`, kgate's `elapsedS`), never over the planned duration.
  return {
    rps: summary.result.completed / summary.result.elapsedS,
    total: summary.result.completed,
    peakRssMb,
    cpuS,
    latencyP99Ms: summary.result.latencyMs.p99,
  };
}

console.log(
  `load bench: ${connections} connections, ${rounds} rounds of ${durationS} s per side, bare node:http target`,
);
const raw: Measured[] = [];
const kgate: (Measured & { latencyP99Ms: number })[] = [];
const kgateHar: (Measured & { latencyP99Ms: number })[] = [];
for (let round = 0; round < rounds; round++) {
  // Rotate which side goes first so drift in the machine's load does not favour one.
  const sides = ['raw', 'kgate', 'kgate-har'];
  const order = [...sides.slice(round % 3), ...sides.slice(0, round % 3)];
  for (const side of order) {
    if (side === 'raw') raw.push(await rawAutocannon());
    else if (side === 'kgate') kgate.push(await kgateLoad(durationS));
    else kgateHar.push(await kgateLoad(durationS, ['--mix-from', harPath]));
  }
  console.log(
    `  round ${round + 1}: raw autocannon CLI ${raw.at(-1)!.rps.toFixed(0)} req/s, kgate load --max-rps max (1 % validated) ${kgate.at(-1)!.rps.toFixed(0)} req/s, the same with --mix-from the raw CLI's HAR ${kgateHar.at(-1)!.rps.toFixed(0)} req/s`,
  );
}
const long = rssDurationS === undefined ? undefined : await kgateLoad(rssDurationS);

// Steady-state CPU per request, measured inside this process around the load window only (no
// start-up), which stays meaningful when other work shares the machine.
const inProcess = { raw: [] as number[], kgate: [] as number[], kgateHar: [] as number[] };
// The mix --mix-from reads from the raw CLI's HAR file, for the runner in this process.
const recordedMix = harMix(JSON.parse(readFileSync(harPath, 'utf8')), harPath).mix;
/** CPU per request (µs) of the runner in this process over a 3 s run at maximum rate with `mix`. */
async function runnerCpuPerRequest(mix: typeof recordedMix): Promise<number> {
  const before = process.cpuUsage();
  const run = await runLoad(
    {
      baseUrl: url,
      key: 'bench-key-0000',
      startRate: 0,
      stages: [],
      maxRate: { durationS: 3 },
      connections,
      validateShare: 0.01,
      mix,
      pathParams: { event_id: 'bench-event' },
    },
    { validate: validateResponse },
  );
  const used = process.cpuUsage(before);
  return (used.user + used.system) / run.completed;
}
for (let round = 0; round < rounds; round++) {
  const before = process.cpuUsage();
  const native = await autocannon({ url, connections, duration: 3, requests: MIX_REQUESTS });
  const used = process.cpuUsage(before);
  inProcess.raw.push((used.user + used.system) / native.requests.total);
  inProcess.kgate.push(await runnerCpuPerRequest(SCENARIOS.steady!.mix));
  inProcess.kgateHar.push(await runnerCpuPerRequest(recordedMix));
}
target.kill();

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const rawRps = median(raw.map((m) => m.rps));
const kgateRps = median(kgate.map((m) => m.rps));
const ratio = kgateRps / rawRps;
const harRatio = median(kgateHar.map((m) => m.rps)) / rawRps;
const cpuPerK = (list: Measured[]) => median(list.map((m) => (m.cpuS / Math.max(1, m.total)) * 1000));
const kgatePeak = Math.max(...kgate.map((m) => m.peakRssMb));
console.log(`kgate / raw autocannon: ${(ratio * 100).toFixed(1)} % of requests per second (median; target >= 90 %)`);
console.log(
  `kgate --mix-from the same HAR / raw autocannon: ${(harRatio * 100).toFixed(1)} % of requests per second (median; target >= 90 %)`,
);
console.log(
  `CPU per 1,000 requests: raw ${(cpuPerK(raw) * 1000).toFixed(1)} ms, kgate ${(cpuPerK(kgate) * 1000).toFixed(1)} ms`,
);
console.log(
  `steady-state CPU per request in one process: autocannon ${median(inProcess.raw).toFixed(1)} µs, kgate runner (mix, 1 % validated) ${median(inProcess.kgate).toFixed(1)} µs (${((median(inProcess.raw) / median(inProcess.kgate)) * 100).toFixed(1)} % efficiency)`,
);
console.log(
  `steady-state CPU per request in one process, the recorded mix of --mix-from: kgate runner ${median(inProcess.kgateHar).toFixed(1)} µs (${((median(inProcess.raw) / median(inProcess.kgateHar)) * 100).toFixed(1)} % efficiency)`,
);
console.log(`kgate peak RSS over ${durationS} s runs: ${kgatePeak} MB`);
if (long) console.log(`kgate peak RSS over a ${rssDurationS} s run: ${long.peakRssMb} MB (target < 300 MB)`);

mkdirSync(join(root, 'reports/bench'), { recursive: true });
writeFileSync(
  join(root, 'reports/bench/load.json'),
  `${JSON.stringify(
    {
      node: process.version,
      connections,
      rounds,
      durationS,
      validateShare: 0.01,
      requests: 'steady mix (raw CLI via --har)',
      rawAutocannonRps: raw.map((m) => Math.round(m.rps)),
      kgateRps: kgate.map((m) => Math.round(m.rps)),
      ratio: Math.round(ratio * 1000) / 1000,
      kgateMixFromHarRps: kgateHar.map((m) => Math.round(m.rps)),
      mixFromHarRatio: Math.round(harRatio * 1000) / 1000,
      ratioTarget: 0.9,
      cpuMsPer1000Requests: {
        raw: Math.round(cpuPerK(raw) * 10000) / 10,
        kgate: Math.round(cpuPerK(kgate) * 10000) / 10,
      },
      inProcessCpuUsPerRequest: {
        autocannon: Math.round(median(inProcess.raw) * 10) / 10,
        kgateRunner: Math.round(median(inProcess.kgate) * 10) / 10,
        kgateRunnerMixFromHar: Math.round(median(inProcess.kgateHar) * 10) / 10,
      },
      kgatePeakRssMb: kgatePeak,
      rawPeakRssMb: Math.max(...raw.map((m) => m.peakRssMb)),
      ...(long ? { longRun: { durationS: rssDurationS, peakRssMb: long.peakRssMb, rps: Math.round(long.rps) } } : {}),
      rssTargetMb: 300,
      kgateP99Ms: median(kgate.map((m) => m.latencyP99Ms)),
    },
    null,
    2,
  )}\n`,
);
