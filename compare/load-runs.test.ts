// The comparison of two load runs on made-up runs whose answer is known: an operation slowed alone
// is named, alone; every operation slowed at its tail together (a busy machine) is a note, not a
// regression; every median slowed together beyond the threshold is the whole target's regression;
// a percentile without enough latencies beyond it is shown, not judged; more errors are a regression.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Random } from '../contracts/generative/random.ts';
import { describeAgainst } from '../load/against.ts';
import type { LatencySamples } from '../load/latency.ts';
import type { LoadSummary } from '../load/report.ts';
import { compareLoadRuns, samplesToJudge } from './load-runs.ts';
import { DEFAULT_THRESHOLD, percentile, percentileOfCounts, shareDifferenceInterval, wilsonInterval } from './stats.ts';

const OPERATIONS = ['evaluateGet', 'interpretGet', 'hotEvents', 'answerSearch', 'similarityGet'];

/**
 * A run of 10 s: each operation `n` latencies spread evenly over the time, drawn around 1 ms
 * (`shape` changes an operation's, by its index in time).
 */
function run(
  seed: number,
  options: { n?: number; failed?: Record<string, number>; shape?: (op: string, ms: number, i: number) => number } = {},
): { summary: LoadSummary; samples: Record<string, LatencySamples> } {
  const random = new Random(seed);
  const n = options.n ?? 600;
  const samples: Record<string, LatencySamples> = {};
  const operations: Record<string, unknown> = {};
  for (const op of OPERATIONS) {
    const latencyUs: number[] = [];
    const atMs: number[] = [];
    for (let i = 0; i < n; i++) {
      const base = 0.8 + random.next() * 0.4 + (random.next() < 0.03 ? random.next() * 4 : 0);
      latencyUs.push(Math.round((options.shape ? options.shape(op, base, i) : base) * 1000));
      atMs.push(Math.floor((i / n) * 10_000));
    }
    samples[op] = { seen: n, atMs, latencyUs };
    operations[op] = { count: n, failed: options.failed?.[op] ?? 0, validated: 0, valid: 0, latencyMs: {} };
  }
  const summary = {
    runId: `run-${seed}`,
    scenario: 'steady',
    target: { baseUrl: 'http://127.0.0.1:1', embedded: false },
    plan: { model: 'open', peakRate: 300, durationS: 10, connections: 50 },
    result: { elapsedS: 10, startedAt: '2026-12-01T00:00:00.000Z', operations },
  } as unknown as LoadSummary;
  return { summary, samples };
}

const compare = (now: ReturnType<typeof run>, then: ReturnType<typeof run>, seed = 1) =>
  compareLoadRuns(now, { ...then, dir: '/runs/then' }, { threshold: DEFAULT_THRESHOLD, seed, resamples: 400 });

describe('a load run against an earlier one', () => {
  test('two runs of the same target: no regression, whatever the seed', () => {
    for (let seed = 1; seed <= 5; seed++) {
      const against = compare(run(seed * 2), run(seed * 2 + 1), seed);
      assert.deepEqual(against.regressed, [], `seed ${seed}`);
      assert.equal(against.everyOperationRegressed, false);
      assert.equal(against.operations.filter((op) => !op.notJudged).length, OPERATIONS.length);
    }
  });

  test('one operation 40 ms slower: it alone, at every percentile its latencies can judge', () => {
    const against = compare(run(11, { shape: (op, ms) => (op === 'evaluateGet' ? ms + 40 : ms) }), run(12));
    assert.deepEqual(against.regressed, ['evaluateGet']);
    const evaluate = against.operations.find((op) => op.operationId === 'evaluateGet')!;
    assert.deepEqual(
      evaluate.latency.map((l) => [l.stat, l.regression]),
      [
        ['p50', true],
        ['p95', true],
        ['p99', true],
      ],
    );
    assert.ok(evaluate.latency[0]!.interval[0] > 1);
    // The terminal's headline names it with how much slower, as a person says it.
    assert.match(
      describeAgainst(against)[0]!,
      /^against run run-12 \(steady\): regressed beyond the run-to-run noise: evaluateGet \(p50 \d+ % slower \(\d\.\d\d ms -> 4\d\.\d ms\), p95 \d+ % slower .*\)$/,
    );
  });

  test("every operation's tail slower together (a busy machine): a note, no regression", () => {
    // One second in ten of the run stalls every operation's answers by 30 ms.
    const busy = run(21, { shape: (_op, ms, i) => (i % 60 < 6 ? ms + 30 : ms) });
    const against = compare(busy, run(22));
    assert.deepEqual(against.regressed, []);
    assert.equal(against.everyOperationRegressed, false);
    assert.ok(
      against.notes.some((note) => /every operation's p95 moved alike/.test(note)),
      against.notes.join('\n'),
    );
  });

  test('every median slower together beyond the threshold: the whole target regressed', () => {
    const against = compare(run(31, { shape: (_op, ms) => ms + 20 }), run(32));
    assert.equal(against.everyOperationRegressed, true);
    assert.deepEqual(against.regressed, [], 'no operation more than the others');
    assert.ok(against.common![0]!.interval[0] > 1);
  });

  test('a percentile without five latencies beyond it in each run is shown, not judged', () => {
    const against = compare(
      run(41, { n: 60, shape: (op, ms) => (op === 'evaluateGet' ? ms + 40 : ms) }),
      run(42, { n: 60 }),
    );
    const evaluate = against.operations.find((op) => op.operationId === 'evaluateGet')!;
    assert.deepEqual(
      evaluate.latency.map((l) => [l.stat, l.regression, l.notJudged === undefined]),
      [
        ['p50', true, true],
        ['p95', false, false],
        ['p99', false, false],
      ],
    );
    assert.deepEqual([samplesToJudge(50), samplesToJudge(95), samplesToJudge(99)], [10, 100, 500]);
    const few = compare(run(43, { n: 4 }), run(44, { n: 4 }));
    assert.ok(few.operations.every((op) => op.notJudged?.startsWith('too few requests')));
  });

  test('more failed requests than the earlier run beyond chance: a regression of the error rate', () => {
    const against = compare(run(51, { failed: { hotEvents: 30 } }), run(52, { failed: { hotEvents: 2 } }));
    assert.deepEqual(against.regressed, ['hotEvents']);
    const hot = against.operations.find((op) => op.operationId === 'hotEvents')!;
    assert.equal(hot.errors!.regression, true);
    assert.ok(hot.errors!.interval[0] > 0);
    const alike = compare(run(53, { failed: { hotEvents: 3 } }), run(54, { failed: { hotEvents: 1 } }));
    assert.deepEqual(alike.regressed, [], 'three failures against one is chance');
  });

  test('an operation sent by one run only is named, not judged', () => {
    const now = run(61);
    delete (now.summary.result.operations as Record<string, unknown>).similarityGet;
    const against = compare(now, run(62));
    assert.equal(
      against.operations.find((op) => op.operationId === 'similarityGet')!.notJudged,
      'sent in the earlier run only',
    );
  });
});

describe('the statistics under it', () => {
  test('a percentile of counted copies is the percentile of the values they stand for', () => {
    const sorted = [1, 2, 3, 5, 8, 13];
    const counts = [2, 0, 1, 3, 1, 4];
    const expanded = sorted.flatMap((value, k) => Array(counts[k]).fill(value) as number[]);
    for (const p of [0, 10, 50, 90, 95, 99, 100])
      assert.equal(percentileOfCounts(sorted, counts, expanded.length, p), percentile(expanded, p), `p${p}`);
    assert.ok(Number.isNaN(percentileOfCounts(sorted, [0, 0, 0, 0, 0, 0], 0, 50)));
  });

  const intervals: { given: [number, number, number, number]; want: [number, number] }[] = [
    // Newcombe (1998), table II: 56/70 against 48/80, method 10: [0.0524, 0.3339].
    { given: [56, 70, 48, 80], want: [0.0524, 0.3339] },
    // 9/10 against 3/10: [0.1705, 0.8090].
    { given: [9, 10, 3, 10], want: [0.1705, 0.809] },
  ];
  for (const { given, want } of intervals) {
    test(`the interval of a difference of shares, as Newcombe's method 10 gives it: ${given.join(', ')}`, () => {
      const [low, high] = shareDifferenceInterval(...given);
      assert.ok(Math.abs(low - want[0]) < 5e-4 && Math.abs(high - want[1]) < 5e-4, `${low}, ${high}`);
    });
  }

  test('the Wilson interval of 0 of n starts at 0', () => {
    const [low, high] = wilsonInterval(0, 100);
    assert.equal(low, 0);
    assert.ok(Math.abs(high - 0.037) < 1e-3, String(high));
  });
});
