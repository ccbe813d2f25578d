// The deployment's envelope, measured:
// 1. What writing it costs: envelope.json and its section of the report page, built from the test
//    records of a whole `kgate conform` run on the embedded default, timed against the same run's
//    wall time (target: no measurable change: under 1 % of it, within the run-to-run noise), and
//    writeRunReports with and without it.
// 2. Throttling at the front: the whole gate with its rate-limit tests through Debian's nginx with
//    `limit_req` (5 r/s, burst 5, nodelay, stock 503) on answer search, against the same gate through
//    the same nginx without the limit, and without the limit but paced at it (`--max-rps-by-path
//    /answersearch/v7.0/search=5`: the floor a 5 r/s limit sets whoever knows it), rounds interleaved.
//    Informative target from the issue: within 1.5x of the run without the limit.
// KGATE_BENCH_ENVELOPE_ROUNDS (default 3) rounds; medians are reported. Figures go to reports/bench/envelope.json.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHECKS } from '../contracts/checks/index.ts';
import { renderPage } from '../page/page.ts';
import { startReferenceServer } from '../reference/index.ts';
import { envelopeSection, runEnvelope, writeEnvelope } from '../reporting/envelope.ts';
import { conformancePage } from '../reporting/report-page.ts';
import { writeRunReports } from '../reporting/run-reports.ts';
import type { RunSummary, TestRecord } from '../reporting/summary.ts';
import { missingBinaries, startNginx } from '../scripts/real-servers.ts';
import { RUN_ALONE_ENV, referenceKeyEnv, runKgate } from '../scripts/run-process.ts';
import { median } from './conform-runs.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ROUNDS = Number(process.env.KGATE_BENCH_ENVELOPE_ROUNDS ?? 3);
const scratch = join(tmpdir(), `kgate-bench-envelope-${process.pid}`);
const figures: Record<string, unknown> = {};

/** Runs kgate conform and times it; `--json` so its requests are read back. */
async function gate(args: string[], env: Record<string, string>, dir: string) {
  const started = performance.now();
  const run = await runKgate(['conform', '--json', '--report-dir', dir, ...args], {
    env: { ...RUN_ALONE_ENV, ...env },
    timeoutMs: 600_000,
  });
  return { seconds: (performance.now() - started) / 1000, code: run.code };
}

try {
  // 1. What writing the envelope costs.
  const walls: number[] = [];
  const writes: number[] = [];
  const withEnvelope: number[] = [];
  const without: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const dir = join(scratch, `gate-${round}`);
    const run = await gate([], {}, dir);
    walls.push(run.seconds);
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as RunSummary;
    const records = JSON.parse(readFileSync(join(dir, 'tests.json'), 'utf8')) as TestRecord[];
    for (let i = 0; i < 20; i++) {
      const started = performance.now();
      const envelope = runEnvelope(summary, records, dir, 'embedded reference server');
      writeEnvelope(dir, envelope);
      const page = conformancePage(summary, CHECKS);
      page.sections.push(envelopeSection(envelope));
      renderPage(page);
      writes.push(performance.now() - started);
    }
    for (let i = 0; i < 5; i++) {
      let started = performance.now();
      writeRunReports(summary, CHECKS, { dir: join(scratch, 'with'), records, previous: null });
      withEnvelope.push(performance.now() - started);
      started = performance.now();
      writeRunReports(summary, CHECKS, { dir: join(scratch, 'without'), records, previous: null, envelope: null });
      without.push(performance.now() - started);
    }
  }
  const wall = median(walls);
  const write = median(writes);
  figures.write = {
    gateWallS: Math.round(wall * 100) / 100,
    envelopeMs: Math.round(write * 100) / 100,
    shareOfGate: write / 1000 / wall,
    writeRunReportsMs: { with: median(withEnvelope), without: median(without) },
  };
  console.log(
    `envelope: built, written and rendered in ${write.toFixed(2)} ms (median of ${writes.length}) against a gate of ${wall.toFixed(2)} s (median of ${walls.length}): ${((write / 1000 / wall) * 100).toFixed(3)} % of it; writeRunReports ${median(withEnvelope).toFixed(1)} ms with it, ${median(without).toFixed(1)} ms without`,
  );

  // 2. Throttling at the front.
  const missing = missingBinaries(['nginx']);
  if (missing) console.log(`throttling rows not run: ${missing}`);
  else {
    const server = await startReferenceServer({ quiet: true });
    const limited = await startNginx({
      upstream: server.url,
      gzip: false,
      limitReq: { path: '/answersearch/', rate: '5r/s', burst: 5, nodelay: true },
    });
    const open = await startNginx({ upstream: server.url, gzip: false });
    const env = referenceKeyEnv(server.keys);
    const rows: Record<'open' | 'limited' | 'paced', number[]> = { open: [], limited: [], paced: [] };
    try {
      for (let round = 0; round < ROUNDS; round++) {
        rows.open.push((await gate(['--base-url', open.url, '--with-rate-limit'], env, join(scratch, 'open'))).seconds);
        rows.limited.push(
          (await gate(['--base-url', limited.url, '--with-rate-limit'], env, join(scratch, 'limited'))).seconds,
        );
        rows.paced.push(
          (
            await gate(
              ['--base-url', open.url, '--with-rate-limit', '--max-rps-by-path', '/answersearch/v7.0/search=5'],
              env,
              join(scratch, 'paced'),
            )
          ).seconds,
        );
      }
    } finally {
      await limited.stop();
      await open.stop();
      await server.close();
    }
    const [a, b, c] = [median(rows.open), median(rows.limited), median(rows.paced)];
    figures.throttling = { openS: a, limitedS: b, pacedS: c, limitedOverOpen: b / a, limitedOverPaced: b / c, rows };
    console.log(
      `nginx limit_req 5 r/s on answer search: ${b.toFixed(1)} s; without the limit ${a.toFixed(1)} s (${(b / a).toFixed(2)}x, target 1.5x); without it but paced at 5/s ${c.toFixed(1)} s (${(b / c).toFixed(2)}x)`,
    );
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
mkdirSync(join(ROOT, 'reports', 'bench'), { recursive: true });
writeFileSync(join(ROOT, 'reports', 'bench', 'envelope.json'), `${JSON.stringify(figures, null, 2)}\n`);
