import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CHECKS, FIXTURE_CHECKS, getCheck } from '../contracts/checks/index.ts';
import type { Failure } from '../contracts/failure.ts';
import { sendHttp } from '../http/client.ts';
import { OPERATIONS } from '../openapi/spec.ts';
import { startReferenceServer } from '../reference/index.ts';
import { createRunDir } from '../reporting/run-dir.ts';
import type { TargetSummary, TestRecord } from '../reporting/summary.ts';
import {
  type ConformOptions,
  DEFAULT_GENERATE,
  DEFAULT_SEED,
  REFERENCE_UNSUBSCRIBED_GROUPS,
  type SweepTarget,
} from '../run/options.ts';
import { runSuite, type SuiteResult } from '../run/run.ts';
import { crossReaders, FAULT_TABLE, type MatrixCell } from './fault-table.ts';

/** One fault as `GET {url}/faults` lists it. */
export interface CatalogueFault {
  name: string;
  group: string;
  operations: string[];
  deviation: 'forbidden' | 'drift' | 'hostile' | 'real' | 'release' | 'legitimate';
  description: string;
  /** A legitimate variation: the clause of a standard or of the interface that allows it. */
  allowedBy?: string;
}

/** How the suite fared against one fault. */
export interface FaultVerdict {
  fault: string;
  /** The fault's group in the catalogue (academic, similarity, answerSearch, urlPreview, eventKnowledge, all). */
  group: string;
  deviation: CatalogueFault['deviation'];
  /** Checks the table says must catch it (empty for drift and real faults). */
  expected: string[];
  /** Checks that reported it on an operation it touches, for its own reason. */
  tripped: string[];
  /**
   * forbidden/hostile: every expected check reported it properly and nothing cascaded;
   * drift/real: the suite passed (warnings allowed).
   */
  caught: boolean;
  /** Failed cells outside the fault's operations and their cross-operation readers (forbidden faults). */
  cascade: MatrixCell[];
  /**
   * A fault that breaks one promise only (`only` in the table): the checks other than its own that
   * failed a cell or proved it anyway. It must be none: only the property of that promise sees it.
   */
  others: string[];
  /** A legitimate variation: the warnings the run raised about it (it must raise none). */
  warnings?: Failure[];
  /** Findings of kgate's own errors (exceptions, test timeouts) against this fault. */
  errors: Failure[];
  /** Tests run against the fault. */
  tests: number;
  /** Estimated duration of a whole `kgate conform` run against the fault, over a clean run's. */
  timeRatio: number;
  /** The most timeRatio may be (see timeBound). */
  timeBound: number;
  /**
   * Input-triggered faults (`generative` in the table): what the fixed battery alone made of it
   * (`--generate 0`); it must pass, so that only the generative phase catches the fault.
   */
  fixedBattery?: { verdict: 'pass' | 'fail' | 'no result'; failed: string[] };
}

/** The outcome of a whole sweep. */
export interface SweepResult {
  /** The suite against the clean server: must pass with no warnings and no skips. */
  clean?: TargetSummary;
  faults: FaultVerdict[];
  /** The legitimate variations (`GET {url}/variations`): each must pass, with no warning. */
  variations: FaultVerdict[];
  caught: number;
  total: number;
  /** Catalogue faults the table has no entry for. */
  unknownFaults: string[];
  /** Table entries whose operations disagree with the catalogue, or that name no catalogue fault. */
  tableMismatches: string[];
  /** Registered checks that no forbidden or hostile fault properly tripped in this sweep. */
  untrippedChecks: string[];
  /** The estimated run time against a fault nearest its bound (or furthest over it), over the clean run's. */
  worstTimeRatio: { fault: string; ratio: number; bound: number };
  /**
   * For each coverage item (contracts/coverage), the faults it caught: the cells whose checks caught a
   * fault for its own reason, and the input items the requests that showed it carried (the ranking
   * of a budgeted plan, run/revealing.json).
   */
  revealing: Record<string, string[]>;
  /** Folder holding the sweep's reports. */
  reportDir: string;
  durationMs: number;
}

/** Per-request deadline against hostile and hanging faults: long enough for a loopback answer, short enough to keep the sweep fast. */
const HOSTILE_TIMEOUT_MS = 2_000;

/** A hostile fault, or one that makes requests miss their deadline: judged at HOSTILE_TIMEOUT_MS. */
function judgedAtHostileDeadline(fault: CatalogueFault): boolean {
  return (
    fault.deviation === 'hostile' || (FAULT_TABLE[fault.name]?.catches.includes('responds-within-timeout') ?? false)
  );
}

/** No fault costs a cascade: a run against it takes at most this many times a clean run (but see timeBound). */
export const CASCADE_TIME_RATIO = 3;

/**
 * The most a run against `fault` may take, over a clean run's: CASCADE_TIME_RATIO, and for a fault
 * judged at the short hostile deadline (see judgedAtHostileDeadline) one deadline more per operation
 * it touches, spread over the workers. Slow is not down: a target that answers every operation a byte at a time
 * is judged operation by operation, each at its own deadline, never given up on as a whole.
 */
export function timeBound(fault: CatalogueFault, cleanRun: { durationMs: number; workers: number }): number {
  if (cleanRun.durationMs <= 0) return CASCADE_TIME_RATIO;
  if (!judgedAtHostileDeadline(fault)) return CASCADE_TIME_RATIO;
  const deadlines = (fault.operations.length * HOSTILE_TIMEOUT_MS) / Math.max(1, cleanRun.workers);
  return CASCADE_TIME_RATIO + deadlines / cleanRun.durationMs;
}

/** The name of the fixed-battery project of an input-triggered fault. */
export function fixedBatteryTarget(fault: string): string {
  return `${fault} (fixed battery)`;
}

/** `<operation label> <check id>`: how a sweep target names the tests it runs. */
function testTitle(record: Pick<TestRecord, 'operation' | 'check'>): string {
  return `${record.operation} ${record.check}`;
}

/** The labels of the operations a fault touches (every operation when the list is empty). */
function labelsOf(operations: readonly string[]): Set<string> {
  const ids = operations.length > 0 ? new Set(operations) : undefined;
  return new Set(OPERATIONS.filter((op) => !ids || ids.has(op.operationId)).map((op) => op.label));
}

/**
 * The tests a fault can affect, from the clean run's records: every test of an operation it
 * touches, and every test that read one (directly, or through discovered data). A test that never
 * sends a request to a touched operation sees exactly what it sees on the clean server. Hostile
 * faults and the whole real profile get every test.
 */
export function selectTests(fault: CatalogueFault, clean: TestRecord[]): string[] {
  if (fault.deviation === 'hostile' || fault.name === 'real-profile' || fault.operations.length === 0) {
    return clean.map(testTitle);
  }
  const touched = new Set(fault.operations);
  const labels = labelsOf(fault.operations);
  return clean
    .filter((record) => labels.has(record.operation) || record.reads.some((id) => touched.has(id)))
    .map(testTitle);
}

/** Builds the Playwright project of one fault, or of one legitimate variation (served under /variations). */
export function sweepTarget(baseUrl: string, fault: CatalogueFault, clean: TestRecord[]): SweepTarget {
  const tests = selectTests(fault, clean);
  const hangs = judgedAtHostileDeadline(fault);
  return {
    name: fault.name,
    baseUrl: `${baseUrl}/${fault.deviation === 'legitimate' ? 'variations' : 'faults'}/${fault.name}`,
    tests,
    timeoutMs: hangs ? HOSTILE_TIMEOUT_MS : undefined,
    rateLimit: tests.some((title) => title.endsWith(' rate-limit-signalled')),
  };
}

/** The projects of one fault: its sweep target, and for an input-triggered fault the same tests without the generative phase. */
export function sweepTargets(baseUrl: string, fault: CatalogueFault, clean: TestRecord[]): SweepTarget[] {
  const target = sweepTarget(baseUrl, fault, clean);
  const entry = FAULT_TABLE[fault.name];
  if (!entry?.generative && !entry?.fixedBattery) return [target];
  const generative = new Set(CHECKS.filter((check) => check.kind === 'generative').map((check) => check.id));
  const fixed = target.tests?.filter((title) => !generative.has(title.slice(title.lastIndexOf(' ') + 1)));
  // A fault only the fixed battery's requests trigger is judged by the fixed battery alone.
  if (entry.fixedBattery) return [{ ...target, tests: fixed, generate: false }];
  // The twin serves under the fault's own prefix, so it shares the reference server's rate-limit
  // buckets with the fault's target, which may run beside it in the other worker: a burst of one
  // would take the tokens the other's recovery request waits for. The rate-limit tests are no part
  // of what the twin shows (that the fixed battery alone misses the fault), and run in the target.
  const twinTests = fixed?.filter((title) => !title.endsWith(' rate-limit-signalled'));
  return [
    target,
    { ...target, name: fixedBatteryTarget(fault.name), tests: twinTests, generate: false, rateLimit: false },
  ];
}

/**
 * True when a finding proves the fault for `check`: on a touched operation, for the check's own
 * reason, and at the check's own weight (a warning proves a fault only for a `warn` check: a
 * missing expected field warns, but catches no forbidden fault).
 */
function provesFault(finding: Failure, check: string, labels: Set<string>): boolean {
  if (finding.check !== check || !labels.has(finding.operation)) return false;
  if ((finding.level ?? 'fail') === 'warn' && getCheck(check)?.severity !== 'warn') return false;
  // A fixture check proves a fault through the request fixture; any other check through its own assertion.
  return FIXTURE_CHECKS.has(check) ? finding.origin === 'fixture' : (finding.origin ?? 'check') === 'check';
}

/** The inputs of judging one fault. */
export interface FaultRun {
  fault: CatalogueFault;
  summary: TargetSummary | undefined;
  /** Input-triggered faults: the fixed battery's run against it. */
  fixedBattery?: TargetSummary;
  /** The clean run's records, and the fault's. */
  clean: TestRecord[];
  records: TestRecord[];
  /** How the clean run went: its wall time and its workers. */
  cleanRun: { durationMs: number; workers: number };
}

/** Judges one fault: proper catches, cascades outside its operations, kgate errors, and the time it costs. */
export function judge({ fault, summary, fixedBattery, clean, records, cleanRun }: FaultRun): FaultVerdict {
  const entry = FAULT_TABLE[fault.name];
  const expected = [...(entry?.catches ?? [])];
  const findings = summary ? [...summary.failures, ...summary.warnings] : [];
  const labels = labelsOf(fault.operations);
  const tripped = [
    ...new Set(
      findings
        .filter((finding) => finding.origin !== 'error' && labels.has(finding.operation))
        .map((finding) => finding.check),
    ),
  ]
    .filter((check) => findings.some((finding) => provesFault(finding, check, labels)))
    .sort();
  const readers = crossReaders(fault.operations);
  const allowed = (cell: MatrixCell) =>
    labels.has(cell.operation) ||
    readers.some((reader) => reader.operation === cell.operation && reader.check === cell.check);
  const failedCells = Object.entries(summary?.matrix ?? {}).flatMap(([operation, row]) =>
    Object.entries(row)
      .filter(([, cell]) => cell === 'fail')
      .map(([check]) => ({ operation, check })),
  );
  const cascade = fault.deviation === 'forbidden' ? failedCells.filter((cell) => !allowed(cell)) : [];
  const others = entry?.only
    ? [
        ...new Set([
          ...failedCells.map((cell) => cell.check).filter((check) => !expected.includes(check)),
          ...tripped.filter((check) => !expected.includes(check)),
        ]),
      ].sort()
    : [];
  const errors = findings.filter((finding) => finding.origin === 'error');
  const passes = summary !== undefined && summary.verdict === 'pass';
  const warnings = fault.deviation === 'legitimate' ? (summary?.warnings ?? []) : undefined;
  const fixed = entry?.generative
    ? {
        verdict: fixedBattery?.verdict ?? ('no result' as const),
        failed: [
          ...new Set((fixedBattery?.failures ?? []).map((finding) => `${finding.check} on ${finding.operation}`)),
        ],
      }
    : undefined;
  const caught =
    summary !== undefined &&
    errors.length === 0 &&
    (fixed === undefined || fixed.verdict === 'pass') &&
    (fault.deviation === 'legitimate'
      ? passes && warnings!.length === 0
      : fault.deviation === 'drift' || fault.deviation === 'real' || fault.deviation === 'release'
        ? passes
        : expected.length > 0 &&
          expected.every((id) => tripped.includes(id)) &&
          cascade.length === 0 &&
          others.length === 0);
  return {
    fault: fault.name,
    group: fault.group,
    deviation: fault.deviation,
    expected,
    tripped,
    caught,
    cascade,
    others,
    ...(warnings ? { warnings } : {}),
    errors,
    tests: records.length,
    timeRatio: timeRatio(clean, records, cleanRun),
    timeBound: timeBound(fault, cleanRun),
    ...(fixed ? { fixedBattery: fixed } : {}),
  };
}

/**
 * Estimates how long a whole `kgate conform` run against a fault takes, over the clean run's wall
 * time: the tests the fault can affect take what they took against it instead of what they took
 * against the clean server, spread over the workers; every other test takes what it takes on the
 * clean server. (A failed check costs no worker restart: runCheck marks it an expected failure.)
 */
export function timeRatio(
  clean: TestRecord[],
  records: TestRecord[],
  cleanRun: { durationMs: number; workers: number },
): number {
  if (cleanRun.durationMs <= 0) return 1;
  const selected = new Set(records.map(testTitle));
  const before = clean
    .filter((record) => selected.has(testTitle(record)))
    .reduce((sum, record) => sum + record.durationMs, 0);
  const after = records.reduce((sum, record) => sum + record.durationMs, 0);
  return (cleanRun.durationMs + (after - before) / Math.max(1, cleanRun.workers)) / cleanRun.durationMs;
}

/**
 * The coverage items that caught a fault: the cell of each finding that proves it (its check, on an
 * operation the fault touches, for its own reason), and the input items the request behind the
 * finding carried.
 */
export function revealingOf(fault: CatalogueFault, records: readonly TestRecord[]): Set<string> {
  const labels = labelsOf(fault.operations);
  const expected = FAULT_TABLE[fault.name]?.catches ?? [];
  const byLabel = new Map(OPERATIONS.map((op) => [op.label, op.operationId as string]));
  const out = new Set<string>();
  for (const record of records)
    for (const finding of record.findings) {
      if (!expected.includes(finding.check) || !provesFault(finding, finding.check, labels)) continue;
      const operationId = byLabel.get(finding.operation);
      if (operationId) out.add(`cell:${operationId}:${finding.check}`);
      for (const item of finding.items ?? []) out.add(item);
    }
  return out;
}

/** Reads the fault catalogue of a running reference server (or, with `variations`, its catalogue of legitimate variations). */
export async function readCatalogue(url: string, path: 'faults' | 'variations' = 'faults'): Promise<CatalogueFault[]> {
  const response = await sendHttp({
    method: 'GET',
    url: `${url}/${path}`,
    headers: {},
    timeoutMs: 10_000,
    maxBytes: 4_000_000,
  });
  if (response.status !== 200) throw new Error(`GET ${url}/${path} answered ${response.status}`);
  return JSON.parse(response.body.toString('utf8')) as CatalogueFault[];
}

/** Differences between the catalogue and the table: unknown faults, stale entries, disagreeing operations. */
export function compareTable(catalogue: CatalogueFault[]): { unknown: string[]; mismatches: string[] } {
  const unknown = catalogue.filter((fault) => !(fault.name in FAULT_TABLE)).map((fault) => fault.name);
  const names = new Set(catalogue.map((fault) => fault.name));
  const mismatches = [
    ...Object.keys(FAULT_TABLE)
      .filter((name) => !names.has(name))
      .map((name) => `${name}: in the table but not in the catalogue`),
    ...catalogue
      .filter((fault) => fault.name in FAULT_TABLE)
      .filter((fault) => [...fault.operations].sort().join() !== [...FAULT_TABLE[fault.name]!.touches].sort().join())
      .map(
        (fault) =>
          `${fault.name}: the catalogue says it touches ${fault.operations.join(', ')}, the table ${FAULT_TABLE[fault.name]!.touches.join(', ')}`,
      ),
  ];
  return { unknown, mismatches };
}

/**
 * Runs the suite against the clean reference server (every test, recording which operations each
 * test reads and how long it takes), then, in one Playwright run, against every fault of the
 * catalogue with the tests the fault can affect, and judges each fault against FAULT_TABLE.
 */
export async function runSweep(
  settings: {
    only?: string[];
    workers?: number;
    reportDir?: string;
    /** A coverage plan every target follows (run/plan.ts): what a budgeted run would send, unpaced. */
    planFile?: string;
  } = {},
): Promise<SweepResult> {
  const started = Date.now();
  const reportDir = settings.reportDir ?? createRunDir('reports/conformance-sweep');
  const server = await startReferenceServer({ quiet: true });
  try {
    const catalogue = (await readCatalogue(server.url)).filter(
      (fault) => !settings.only || settings.only.includes(fault.name),
    );
    const variations = (await readCatalogue(server.url, 'variations')).filter(
      (variation) => !settings.only || settings.only.includes(variation.name),
    );
    const options = (dir: string, targets: SweepTarget[]): ConformOptions => {
      mkdirSync(dir, { recursive: true });
      const sweepFile = join(dir, 'sweep-targets.json');
      writeFileSync(sweepFile, JSON.stringify(targets));
      return {
        strict: false,
        timeoutMs: 10_000,
        maxBytes: 8 * 1024 * 1024,
        rateLimit: true,
        embedded: true,
        unsubscribedGroups: REFERENCE_UNSUBSCRIBED_GROUPS,
        reportDir: dir,
        workers: settings.workers,
        quiet: true,
        sweepFile,
        generate: DEFAULT_GENERATE,
        seed: DEFAULT_SEED,
        ...(settings.planFile ? { planFile: settings.planFile } : {}),
      };
    };
    const keys = { full: server.keys.full, unsubscribed: server.keys.academicOnly, exhausted: server.keys.exhausted };
    const run = async (dir: string, targets: SweepTarget[]): Promise<SuiteResult & { records: TestRecord[] }> => {
      const result = await runSuite({ keys, options: options(dir, targets) });
      if (!result.summary || !result.records) {
        throw new Error(
          `the sweep produced no summary (Playwright exit ${result.playwrightExitCode}):\n${result.output}`,
        );
      }
      return { ...result, records: result.records };
    };
    const cleanRun = await run(join(reportDir, 'clean'), [{ name: 'clean', baseUrl: server.url, rateLimit: true }]);
    const clean = cleanRun.records;
    const faultRun = await run(join(reportDir, 'faults'), [
      ...catalogue.flatMap((fault) => sweepTargets(server.url, fault, clean)),
      ...variations.map((variation) => sweepTarget(server.url, variation, clean)),
    ]);
    const byTarget = new Map(faultRun.summary!.targets.map((target) => [target.target, target]));
    const cleanTiming = { durationMs: cleanRun.summary!.durationMs, workers: cleanRun.summary!.workers ?? 1 };
    const judged = (fault: CatalogueFault) =>
      judge({
        fault,
        summary: byTarget.get(fault.name),
        fixedBattery: byTarget.get(fixedBatteryTarget(fault.name)),
        clean,
        records: faultRun.records.filter((record) => record.project === fault.name),
        cleanRun: cleanTiming,
      });
    const faults = catalogue.map(judged);
    const judgedVariations = variations.map(judged);
    const properlyTripped = new Set(
      faults
        .filter((verdict) => ['forbidden', 'hostile'].includes(verdict.deviation))
        .flatMap((verdict) => verdict.tripped),
    );
    const revealing: Record<string, string[]> = {};
    for (const verdict of faults) {
      if (!verdict.caught || !['forbidden', 'hostile'].includes(verdict.deviation)) continue;
      const fault = catalogue.find((entry) => entry.name === verdict.fault)!;
      for (const item of revealingOf(
        fault,
        faultRun.records.filter((record) => record.project === fault.name),
      ))
        revealing[item] = [...(revealing[item] ?? []), fault.name];
    }
    const { unknown, mismatches } = compareTable(catalogue);
    const worst = [...faults, ...judgedVariations].reduce(
      (found, verdict) =>
        verdict.timeRatio / verdict.timeBound > found.ratio / found.bound
          ? { fault: verdict.fault, ratio: verdict.timeRatio, bound: verdict.timeBound }
          : found,
      { fault: 'clean', ratio: 1, bound: CASCADE_TIME_RATIO },
    );
    return {
      clean: cleanRun.summary!.targets.find((target) => target.target === 'clean'),
      faults,
      variations: judgedVariations,
      caught: faults.filter((verdict) => verdict.caught).length,
      total: faults.length,
      unknownFaults: unknown,
      tableMismatches: settings.only ? mismatches.filter((line) => !line.includes('not in the catalogue')) : mismatches,
      untrippedChecks: settings.only ? [] : CHECKS.map((check) => check.id).filter((id) => !properlyTripped.has(id)),
      worstTimeRatio: worst,
      revealing: Object.fromEntries(Object.entries(revealing).sort(([a], [b]) => a.localeCompare(b))),
      reportDir,
      durationMs: Date.now() - started,
    };
  } finally {
    await server.close();
  }
}

/** Renders the sweep as a table: one line per fault, then the score. */
export function renderSweep(result: SweepResult): string {
  const lines = [...result.faults, ...result.variations].map((verdict) => {
    const legitimate = verdict.deviation === 'legitimate';
    const mark = verdict.caught ? (legitimate ? 'passes' : 'caught') : legitimate ? 'FAILS' : 'MISSED';
    const want = ['drift', 'real', 'release', 'legitimate'].includes(verdict.deviation)
      ? 'conform passes'
      : verdict.expected.join(', ');
    const cascade = verdict.cascade.length
      ? `; CASCADE ${verdict.cascade.map((cell) => `${cell.check} on ${cell.operation}`).join(', ')}`
      : '';
    const errors = verdict.errors.length ? `; KGATE ERRORS ${verdict.errors.length}` : '';
    const others = verdict.others.length ? `; ALSO SEEN BY ${verdict.others.join(', ')}` : '';
    const warned = verdict.warnings?.length
      ? `; WARNINGS ${verdict.warnings.map((warning) => `${warning.check} on ${warning.operation}`).join(', ')}`
      : '';
    const fixed = verdict.fixedBattery
      ? verdict.fixedBattery.verdict === 'pass'
        ? '; fixed battery alone misses it'
        : `; FIXED BATTERY ALONE ${verdict.fixedBattery.verdict.toUpperCase()} (${verdict.fixedBattery.failed.join(', ')})`
      : '';
    return `${mark.padEnd(7)} ${verdict.deviation.padEnd(9)} ${verdict.fault.padEnd(44)} ${String(verdict.tests).padStart(3)} tests x${verdict.timeRatio.toFixed(2)} want ${want}; tripped ${verdict.tripped.join(', ') || 'nothing'}${cascade}${others}${warned}${errors}${fixed}`;
  });
  if (result.clean)
    lines.unshift(
      `clean   ${result.clean.verdict === 'pass' ? 'passes' : 'FAILS'} (${result.clean.counts.passed} passed, ${result.clean.counts.failed} failed, ${result.clean.counts.warned} warnings, ${result.clean.counts.skipped} skipped; ${result.clean.tests.total} tests)`,
    );
  lines.push(
    `score: ${result.caught} / ${result.total} faults caught, ${result.variations.filter((verdict) => verdict.caught).length} / ${result.variations.length} legitimate variations passed, in ${(result.durationMs / 1000).toFixed(1)} s; run time against a fault nearest its bound x${result.worstTimeRatio.ratio.toFixed(2)} of a clean run, bound x${result.worstTimeRatio.bound.toFixed(2)} (${result.worstTimeRatio.fault})`,
  );
  return lines.join('\n');
}
