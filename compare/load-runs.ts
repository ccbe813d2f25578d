// A load run against an earlier one (`kgate load --against-run DIR|latest`): per operation, the
// p50, p95 and p99 latency and the error rate of both runs side by side, with intervals from the
// statistics `kgate compare --latency` uses (a bootstrap interval of the ratio at 95 %, and a
// regression only when it lies above 1 and the slow-down is beyond the threshold). Two runs taken
// minutes or days apart have no pairs of requests to keep together: each run's latencies are
// resampled in blocks of its own time, so that what one moment of a run did to consecutive requests
// (a stall, a pause of the machine) counts as that run's noise, not as a change of the release.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Random, seedOf } from '../contracts/generative/random.ts';
import type { AgainstLatency, AgainstOperation, AgainstRun, CommonMove } from '../load/against.ts';
import type { LatencySamples } from '../load/latency.ts';
import { type LoadSummary, SAMPLES_FILE } from '../load/report.ts';
import { isRunId, kindFolder, runIdTime } from '../reporting/run-dir.ts';
import {
  BOOTSTRAP_RESAMPLES,
  CONFIDENCE,
  confidenceInterval,
  exceedsThreshold,
  percentile,
  percentileOfCounts,
  type RegressionThreshold,
  shareDifferenceInterval,
} from './stats.ts';

/** An earlier run that cannot be compared with: the message says why. */
export class AgainstRunError extends Error {
  override name = 'AgainstRunError';
}

/** A load run as its folder keeps it: the summary and each operation's reservoir of latencies. */
export interface LoadRunRecord {
  dir: string;
  summary: LoadSummary;
  samples: Record<string, LatencySamples>;
}

/** Fewest latencies of an operation in each run for its percentiles to be compared. */
export const MIN_SAMPLES = 5;
/** Fewest latencies beyond a percentile, in each run, for it to be judged (a p99 of 40 latencies is their largest one). */
export const MIN_TAIL = 5;

/** The fewest latencies a run needs for its percentile `p` to be judged: 10 for p50, 100 for p95, 500 for p99. */
export function samplesToJudge(p: number): number {
  return Math.max(MIN_SAMPLES, Math.ceil(MIN_TAIL / (1 - p / 100) - 1e-9));
}
/** The percentiles compared. */
export const COMPARED_PERCENTILES = [50, 95, 99] as const;
/** Each run's time is cut into at least this many blocks for the bootstrap (blocks of 100 ms to 1 s). */
const BLOCKS = 30;

/** Reads a load run's folder; throws AgainstRunError naming what is missing. */
export function readLoadRun(dir: string): LoadRunRecord {
  const summaryPath = join(dir, 'summary.json');
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new AgainstRunError(`no such folder '${dir}'`);
  if (!existsSync(summaryPath)) throw new AgainstRunError(`'${dir}' holds no summary.json of a load run`);
  let summary: LoadSummary;
  try {
    summary = JSON.parse(readFileSync(summaryPath, 'utf8')) as LoadSummary;
  } catch (error) {
    throw new AgainstRunError(`${summaryPath} is not JSON (${(error as Error).message})`);
  }
  if (typeof summary !== 'object' || summary === null || typeof summary.scenario !== 'string' || !summary.result)
    throw new AgainstRunError(`${summaryPath} is not the summary of a load run (a run that stopped before its load?)`);
  const samplesPath = join(dir, SAMPLES_FILE);
  if (!existsSync(samplesPath))
    throw new AgainstRunError(
      `'${dir}' keeps no ${SAMPLES_FILE}: the run was made by an older kgate, or stopped before its load; compare with a run that has one`,
    );
  let samples: Record<string, LatencySamples>;
  try {
    samples = (JSON.parse(readFileSync(samplesPath, 'utf8')) as { operations: Record<string, LatencySamples> })
      .operations;
  } catch (error) {
    throw new AgainstRunError(`${samplesPath} is not JSON (${(error as Error).message})`);
  }
  if (!samples || typeof samples !== 'object') throw new AgainstRunError(`${samplesPath} holds no operations`);
  return { dir, summary, samples };
}

/**
 * The newest run folder under reports/load/ (or `base`) of the scenario `scenario` that can be
 * compared with (its summary and samples kept), leaving out `exclude` (this run's own folder).
 */
export function latestLoadRun(scenario: string, exclude?: string, base = kindFolder('load')): string | undefined {
  const root = resolve(base);
  let names: string[];
  try {
    names = readdirSync(root).filter(isRunId);
  } catch {
    return undefined;
  }
  const newestFirst = names.sort(
    (a, b) => (runIdTime(b)?.getTime() ?? 0) - (runIdTime(a)?.getTime() ?? 0) || b.localeCompare(a),
  );
  for (const name of newestFirst) {
    const dir = join(root, name);
    if (exclude && resolve(exclude) === dir) continue;
    try {
      const run = readLoadRun(dir);
      if (run.summary.scenario === scenario) return dir;
    } catch {
      // Not a run that can be compared with (stopped, older): look further back.
    }
  }
  return undefined;
}

/** The block of time of a run's latencies: a thirtieth of the run, from 100 ms to 1 s. */
function blockMsOf(summary: LoadSummary): number {
  const ms = (summary.result.elapsedS * 1000) / BLOCKS;
  return Math.round(Math.min(1000, Math.max(100, Number.isFinite(ms) ? ms : 1000)));
}

/** One run's latencies, operation by operation, in the blocks of time every operation shares. */
interface RunBlocks {
  /** The blocks that hold a latency of some operation. */
  blocks: number;
  operations: Map<
    string,
    {
      /** The operation's latencies (ms), ascending. */
      sorted: Float64Array;
      /** For each block, the ranks of the operation's latencies recorded in it. */
      byBlock: Uint32Array[];
      /** Resample scratch: copies of each rank drawn. */
      counts: Uint32Array;
    }
  >;
}

/** Cuts a run's reservoirs (of the operations `ids`) into shared blocks of `blockMs`. */
function runBlocks(samples: Record<string, LatencySamples>, ids: readonly string[], blockMs: number): RunBlocks {
  const blockIds = new Map<number, number>();
  for (const id of ids)
    for (const at of samples[id]!.atMs) {
      const block = Math.floor(at / blockMs);
      if (!blockIds.has(block)) blockIds.set(block, blockIds.size);
    }
  const operations: RunBlocks['operations'] = new Map();
  for (const id of ids) {
    const { atMs, latencyUs } = samples[id]!;
    const order = latencyUs.map((_, i) => i).sort((a, b) => latencyUs[a]! - latencyUs[b]! || a - b);
    const lists: number[][] = Array.from({ length: blockIds.size }, () => []);
    order.forEach((index, rank) => {
      lists[blockIds.get(Math.floor(atMs[index]! / blockMs))!]!.push(rank);
    });
    operations.set(id, {
      sorted: Float64Array.from(order, (i) => latencyUs[i]! / 1000),
      byBlock: lists.map((list) => Uint32Array.from(list)),
      counts: new Uint32Array(order.length),
    });
  }
  return { blocks: blockIds.size, operations };
}

/**
 * One bootstrap resample of a run: as many blocks as it has, drawn with replacement, the same
 * blocks for every operation (what a moment did to the run's requests stays together, across
 * operations too); each operation's percentiles of what the blocks hold (NaN when they hold none).
 */
function resample(run: RunBlocks, next: () => number, percentiles: readonly number[]): Map<string, number[]> {
  const drawn = Array.from({ length: run.blocks }, () => Math.floor(next() * run.blocks));
  const out = new Map<string, number[]>();
  for (const [id, op] of run.operations) {
    op.counts.fill(0);
    let total = 0;
    for (const block of drawn) {
      const ranks = op.byBlock[block]!;
      for (let i = 0; i < ranks.length; i++) op.counts[ranks[i]!]!++;
      total += ranks.length;
    }
    out.set(
      id,
      percentiles.map((p) => percentileOfCounts(op.sorted, op.counts, total, p)),
    );
  }
  return out;
}

/** The median of the finite values, NaN when there is none. */
function medianOf(values: readonly number[]): number {
  const finite = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  return finite.length === 0 ? Number.NaN : percentile(finite, 50);
}

/** Fewest operations judged for their common move to be told apart from one operation's change. */
export const MIN_COMMON_OPERATIONS = 3;

/**
 * Compares a run (`current`) with an earlier one (`previous`), operation by operation: the latency
 * percentiles with their intervals, each against how every operation moved together (the machine
 * two runs did not share, or the target as a whole), and the error rate with the interval of its
 * difference.
 */
export function compareLoadRuns(
  current: Omit<LoadRunRecord, 'dir'>,
  previous: LoadRunRecord,
  options: { threshold: RegressionThreshold; seed?: number; resamples?: number },
): AgainstRun {
  const seed = options.seed ?? 1;
  const resamples = options.resamples ?? BOOTSTRAP_RESAMPLES;
  const threshold = options.threshold;
  const blockMs = { current: blockMsOf(current.summary), previous: blockMsOf(previous.summary) };
  const nowOps = current.summary.result.operations;
  const thenOps = previous.summary.result.operations;
  const ids = [...new Set([...Object.keys(nowOps), ...Object.keys(thenOps)])].sort();
  const kept = (samples: Record<string, LatencySamples>, id: string) => samples[id]?.latencyUs.length ?? 0;
  const judged = ids.filter(
    (id) => nowOps[id] && thenOps[id] && Math.min(kept(current.samples, id), kept(previous.samples, id)) >= MIN_SAMPLES,
  );
  const percentiles = COMPARED_PERCENTILES;
  const common = judged.length >= MIN_COMMON_OPERATIONS;

  // The bootstrap: each resample draws each run's blocks anew; every operation's ratio at each
  // percentile, their median (the common move) and each ratio over it.
  const ratios = new Map(judged.map((id) => [id, percentiles.map(() => new Float64Array(resamples))]));
  const relatives = new Map(judged.map((id) => [id, percentiles.map(() => new Float64Array(resamples))]));
  const commons = percentiles.map(() => new Float64Array(resamples));
  if (judged.length > 0) {
    const now = runBlocks(current.samples, judged, blockMs.current);
    const then = runBlocks(previous.samples, judged, blockMs.previous);
    const rng = new Random(seedOf(seed, 'against-run'));
    const next = () => rng.next();
    for (let r = 0; r < resamples; r++) {
      const a = resample(now, next, percentiles);
      const b = resample(then, next, percentiles);
      percentiles.forEach((_, q) => {
        const each = judged.map((id) => {
          const [x, y] = [a.get(id)![q]!, b.get(id)![q]!];
          const ratio = y > 0 && Number.isFinite(x) ? x / y : Number.NaN;
          ratios.get(id)![q]![r] = ratio;
          return ratio;
        });
        const move = common ? medianOf(each) : 1;
        commons[q]![r] = move;
        judged.forEach((id, i) => {
          relatives.get(id)![q]![r] = each[i]! / move;
        });
      });
    }
  }

  // The point figures: each run's percentiles of all it kept.
  const point = (samples: Record<string, LatencySamples>, id: string) => {
    const sorted = samples[id]!.latencyUs.map((us) => us / 1000).sort((a, b) => a - b);
    return percentiles.map((p) => percentile(sorted, p));
  };
  const figures = new Map(
    judged.map((id) => [id, { now: point(current.samples, id), before: point(previous.samples, id) }]),
  );
  const round = (value: number) => Math.round(value * 1000) / 1000;
  const roundPair = ([a, b]: [number, number]): [number, number] => [round(a), round(b)];
  const commonMoves: CommonMove[] = percentiles.map((p, q) => {
    const each = judged.map((id) => figures.get(id)!.now[q]! / figures.get(id)!.before[q]!);
    return {
      stat: `p${p}`,
      ratio: round(common ? medianOf(each) : 1),
      interval: common ? roundPair(confidenceInterval(commons[q]!)) : [1, 1],
      previous: round(medianOf(judged.map((id) => figures.get(id)!.before[q]!))),
      current: round(medianOf(judged.map((id) => figures.get(id)!.now[q]!))),
    };
  });

  const operations = ids.map((operationId): AgainstOperation => {
    const now = nowOps[operationId];
    const then = thenOps[operationId];
    if (!now || !then)
      return {
        operationId,
        notJudged: `sent in ${now ? 'this run' : 'the earlier run'} only`,
        latency: [],
        regression: false,
      };
    const interval = shareDifferenceInterval(now.failed, now.count, then.failed, then.count);
    const rate = (failed: number, count: number) => (count === 0 ? 0 : failed / count);
    const errors = {
      previous: { failed: then.failed, count: then.count, rate: rate(then.failed, then.count) },
      current: { failed: now.failed, count: now.count, rate: rate(now.failed, now.count) },
      difference: Math.round((rate(now.failed, now.count) - rate(then.failed, then.count)) * 1e6) / 1e6,
      interval: [Math.round(interval[0] * 1e6) / 1e6, Math.round(interval[1] * 1e6) / 1e6] as [number, number],
      regression: interval[0] > 0,
    };
    if (!judged.includes(operationId)) {
      const fewest = Math.min(kept(current.samples, operationId), kept(previous.samples, operationId));
      return {
        operationId,
        notJudged: `too few requests for its percentiles (${fewest}; at least ${MIN_SAMPLES} in each run)`,
        latency: [],
        errors,
        regression: errors.regression,
      };
    }
    const { now: c, before: u } = figures.get(operationId)!;
    const latency = percentiles.map((p, q): AgainstLatency => {
      const move = commonMoves[q]!.ratio;
      const relativeInterval = roundPair(confidenceInterval(relatives.get(operationId)![q]!));
      // Slower or faster than the run's common move says it would be, by more than the threshold.
      const expected = u[q]! * move;
      const fewest = Math.min(kept(current.samples, operationId), kept(previous.samples, operationId));
      const notJudged =
        fewest < samplesToJudge(p)
          ? `too few requests for a p${p} (${fewest}; at least ${samplesToJudge(p)} in each run, ${MIN_TAIL} beyond it)`
          : undefined;
      return {
        stat: `p${p}`,
        previous: round(u[q]!),
        current: round(c[q]!),
        ratio: round(c[q]! / u[q]!),
        interval: roundPair(confidenceInterval(ratios.get(operationId)![q]!)),
        relative: { ratio: round(c[q]! / u[q]! / move), interval: relativeInterval },
        ...(notJudged ? { notJudged } : {}),
        regression: !notJudged && relativeInterval[0] > 1 && exceedsThreshold(c[q]!, expected, threshold),
        improvement: !notJudged && relativeInterval[1] < 1 && exceedsThreshold(expected, c[q]!, threshold),
      };
    });
    return {
      operationId,
      latency,
      errors,
      regression: latency.some((l) => l.regression) || errors.regression,
    };
  });
  // The median of every operation slower alike: the target as a whole, or the machine; a tail that
  // moves alike is said in a note, not judged (a busy machine moves every tail at once).
  const median = commonMoves[0]!;
  const everyOperationRegressed =
    common && median.interval[0] > 1 && exceedsThreshold(median.current, median.previous, threshold);
  const notes = planNotes(current.summary, previous.summary);
  if (!common && judged.length > 0)
    notes.push(
      `only ${judged.length} operation${judged.length === 1 ? '' : 's'} judged: too few to tell how every operation moved together (the machine's share) from one operation's change; each is judged on its own.`,
    );
  if (common)
    for (const move of commonMoves.slice(1))
      if (move.interval[0] > 1 || move.interval[1] < 1)
        notes.push(
          `every operation's ${move.stat} moved alike by x${move.ratio.toFixed(2)} [${move.interval[0].toFixed(2)}, ${move.interval[1].toFixed(2)}] (${move.previous.toFixed(1)} -> ${move.current.toFixed(1)} ms, the medians over operations): the machine the runs shared, or the target as a whole; each operation is judged against that move, and a tail moving alike is not judged as a regression.`,
        );
  return {
    previous: {
      dir: previous.dir,
      runId: previous.summary.runId,
      scenario: previous.summary.scenario,
      startedAt: previous.summary.result.startedAt,
      target: previous.summary.target.embedded ? 'embedded reference server' : previous.summary.target.baseUrl,
    },
    threshold: { ...threshold },
    statistics: { confidence: CONFIDENCE, resamples, seed, blockMs },
    notes,
    ...(common ? { common: commonMoves } : {}),
    everyOperationRegressed,
    operations,
    regressed: operations.filter((op) => op.regression).map((op) => op.operationId),
  };
}

/** What differs between two runs' plans and mixes, each in a sentence. */
function planNotes(current: LoadSummary, previous: LoadSummary): string[] {
  const notes: string[] = [];
  if (current.scenario !== previous.scenario)
    notes.push(`the earlier run is of the ${previous.scenario} scenario, this one of ${current.scenario}.`);
  const a = current.plan;
  const b = previous.plan;
  const plan = (p: LoadSummary['plan']) =>
    p.model === 'closed'
      ? `closed model, ${p.connections} connections for ${p.durationS} s`
      : `${p.peakRate}/s at peak for ${p.durationS} s, ${p.connections} in flight`;
  if (plan(a) !== plan(b)) notes.push(`the plans differ: this run ${plan(a)}, the earlier one ${plan(b)}.`);
  const shares = (summary: LoadSummary) =>
    Object.fromEntries((summary.mix?.comparison.operations ?? []).map((op) => [op.operationId, op.asked]));
  const [now, then] = [shares(current), shares(previous)];
  const gap = Math.max(
    0,
    ...[...new Set([...Object.keys(now), ...Object.keys(then)])].map((id) =>
      Math.abs((now[id] ?? 0) - (then[id] ?? 0)),
    ),
  );
  if (Object.keys(then).length > 0 && gap > 0.05)
    notes.push(
      `the mixes differ: an operation's share moved by ${Number((gap * 100).toFixed(1))} points (latency under another mix may differ for that reason alone).`,
    );
  return notes;
}
