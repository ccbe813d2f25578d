// What the coverage model's classes from the standards and client libraries (contracts/coverage/
// SOURCES.md: number forms, encoders, header fields, dates, markets, URLs, texts that are no words)
// cost the unbudgeted gate in requests, against a baseline in the same run: the gate of the commit
// before them (by default the parent of the commit that added reference/numbers.ts), taken out of the
// history into a temporary folder (`git archive`, this checkout's dependencies), both run in turn
// against one reference server in another process, interleaved in rounds. Target: at most 1.10x the
// requests, every item of the model judged. The rate-limit tests' bursts stop at the first 429 and
// so vary with timing: the figures say the requests without them too.
// KGATE_BENCH_MODEL_BEFORE: the baseline commit; KGATE_BENCH_MODEL_ROUNDS (default 3): rounds, medians reported.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunSummary } from '../reporting/summary.ts';
import { referenceKeyEnv } from '../scripts/run-process.ts';
import { median, ROOT, type ServedKeys, serveApart } from './conform-runs.ts';

const OUT = `${ROOT}reports/bench/model`;
const ROUNDS = Number(process.env.KGATE_BENCH_MODEL_ROUNDS ?? 3);
const TARGET = 1.1;
const git = (...args: string[]) => execFileSync('git', ['-C', ROOT, ...args], { encoding: 'utf8' }).trim();

const first = git('log', '--diff-filter=A', '--format=%H', '--', 'reference/numbers.ts').split('\n').at(-1);
const before = process.env.KGATE_BENCH_MODEL_BEFORE ?? (first ? git('rev-parse', `${first}^`) : '');
if (!before) {
  console.error('bench model: no baseline commit; name one in KGATE_BENCH_MODEL_BEFORE');
  process.exit(2);
}

/** One gate run: its requests, those of the rate-limit bursts, the items it judged of the model's. */
interface GateRun {
  requests: number;
  bursts: number;
  judged: number;
  items: number;
}

/** `kgate conform --json` of a checkout against the server apart, as a deployment is judged. */
function gate(folder: string, url: string, keys: ServedKeys, name: string): Promise<GateRun> {
  const reportDir = `${OUT}/${name}`;
  const child = spawn(
    process.execPath,
    ['bin/kgate.mjs', 'conform', '--json', '--base-url', url, '--report-dir', reportDir],
    {
      cwd: folder,
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
  return new Promise((resolve, reject) => {
    child.on('close', (code) => {
      let summary: RunSummary | undefined;
      try {
        summary = JSON.parse(stdout) as RunSummary;
      } catch {
        // The exit code says why.
      }
      if (code !== 0 || !summary) {
        reject(new Error(`bench model: ${name} did not pass (exit ${code}): ${stderr.slice(-2000)}`));
        return;
      }
      const tests = JSON.parse(readFileSync(`${reportDir}/tests.json`, 'utf8')) as {
        check: string;
        requests?: { test: number };
      }[];
      const bursts = tests
        .filter((test) => test.check === 'rate-limit-signalled')
        .reduce((sum, test) => sum + (test.requests?.test ?? 0), 0);
      resolve({
        requests: summary.requests ?? 0,
        bursts,
        judged: summary.coverage?.judged ?? 0,
        items: summary.coverage?.items ?? 0,
      });
    });
  });
}

mkdirSync(OUT, { recursive: true });
const scratch = mkdtempSync(join(tmpdir(), 'kgate-bench-model-'));
const baseline = join(scratch, 'before');
mkdirSync(baseline);
execFileSync('sh', ['-c', `git -C '${ROOT}' archive ${before} | tar -x -C '${baseline}'`]);
symlinkSync(join(ROOT, 'node_modules'), join(baseline, 'node_modules'));
console.log(
  `bench model: the baseline is ${before.slice(0, 10)} (${git('log', '-1', '--format=%s', before).slice(0, 80)})`,
);
const apart = await serveApart();
const runs: Record<'before' | 'after', GateRun[]> = { before: [], after: [] };
try {
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? (['before', 'after'] as const) : (['after', 'before'] as const);
    for (const which of order) {
      const run = await gate(which === 'before' ? baseline : ROOT, apart.url, apart.keys, `${which}-${round}`);
      runs[which].push(run);
      console.log(
        `  round ${round + 1} ${which}: ${run.requests} requests (${run.bursts} in bursts), ${run.judged} of ${run.items} items`,
      );
    }
  }
} finally {
  apart.child.kill();
  rmSync(scratch, { recursive: true, force: true });
}
const all = (which: 'before' | 'after') => median(runs[which].map((run) => run.requests));
const unbursted = (which: 'before' | 'after') => median(runs[which].map((run) => run.requests - run.bursts));
const ratio = all('after') / all('before');
const ratioUnbursted = unbursted('after') / unbursted('before');
const items = runs.after.at(-1)!;
const figures = {
  before,
  rounds: ROUNDS,
  runs,
  median: { before: all('before'), after: all('after') },
  withoutBursts: { before: unbursted('before'), after: unbursted('after') },
  ratio,
  ratioWithoutBursts: ratioUnbursted,
  target: TARGET,
  judged: { judged: items.judged, items: items.items },
};
writeFileSync(`${OUT}/figures.json`, `${JSON.stringify(figures, null, 2)}\n`);
console.log(
  `the unbudgeted gate against a server in another process: ${all('before')} requests before the model's classes, ${all('after')} with them: ${ratio.toFixed(3)}x (target <= ${TARGET}; without the rate-limit bursts ${unbursted('before')} and ${unbursted('after')}: ${ratioUnbursted.toFixed(3)}x); ${items.judged} of ${items.items} items judged`,
);
process.exit(ratio <= TARGET && items.judged === items.items ? 0 : 1);
