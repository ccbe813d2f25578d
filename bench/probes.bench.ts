// How close `kgate probe rate-limit` comes to a target's rate limit, and how long it takes: the
// reference server in a process of its own (`kgate serve --rate-limit R`), the probe in this one,
// one limit after the other (each probe alone on the machine). Targets: within 10 % of the limit,
// in under 30 s. The project's tests check the probe at limits a loaded machine still sends past,
// with a loaded machine's margin (load/probes/rate-limit.test.ts); the accuracy is measured here.
// KGATE_BENCH_PROBES_ROUNDS (default 2) rounds per limit; the worst of them is reported.
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { probeRateLimit } from '../load/probes/rate-limit.ts';
import { validateResponse } from '../openapi/validator.ts';
import { ROOT, serveApart } from './conform-runs.ts';

const ROUNDS = Number(process.env.KGATE_BENCH_PROBES_ROUNDS ?? 2);
const WITHIN = 0.1;
const DURATION_TARGET_S = 30;
const CASES = [
  { operation: 'answerSearch' as const, rateLimit: 50 },
  { operation: 'urlPreview' as const, rateLimit: 200 },
  // The top rate only a third above the limit: the bucket takes seconds to drain there.
  { operation: 'answerSearch' as const, rateLimit: 300, maxRate: 400 },
];

/** `kgate serve` in a process of its own at a rate limit; resolves with its URL and full key once it listens. */
async function serve(rateLimit: number): Promise<{ child: ChildProcess; url: string; key: string }> {
  const { child, url, keys } = await serveApart(['--rate-limit', String(rateLimit)]);
  return { child, url, key: keys.full };
}

const rows: { operation: string; rateLimit: number; found: (number | null)[]; seconds: number[]; worstOff: number }[] =
  [];
for (const { operation, rateLimit, maxRate } of CASES) {
  const found: (number | null)[] = [];
  const seconds: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const server = await serve(rateLimit);
    try {
      const result = await probeRateLimit({
        baseUrl: server.url,
        key: server.key,
        operation,
        validate: validateResponse,
        maxRate,
      });
      found.push(result.thresholdRps);
      seconds.push(result.durationS);
    } finally {
      server.child.kill();
    }
  }
  const worstOff = Math.max(...found.map((value) => (value === null ? 1 : Math.abs(value - rateLimit) / rateLimit)));
  rows.push({ operation, rateLimit, found, seconds, worstOff });
  console.log(
    `${operation} limited to ${rateLimit}/s${maxRate ? ` (top rate ${maxRate}/s)` : ''}: found ${found.map((value) => (value === null ? 'none' : `${value}/s`)).join(', ')} in ${seconds.map((value) => `${value.toFixed(1)} s`).join(', ')}; worst ${(worstOff * 100).toFixed(1)} % off (target within ${WITHIN * 100} %, under ${DURATION_TARGET_S} s)`,
  );
}
mkdirSync(`${ROOT}reports/bench`, { recursive: true });
writeFileSync(
  `${ROOT}reports/bench/probes.json`,
  `${JSON.stringify({ rounds: ROUNDS, targets: { within: WITHIN, seconds: DURATION_TARGET_S }, rows }, null, 2)}\n`,
);
