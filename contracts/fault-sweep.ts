import { OPERATIONS } from '../openapi/spec.ts';
import { startReferenceServer } from '../reference/index.ts';
import { CHECKS, testsExercising } from './checks/index.ts';
import { EXPECTED_CHECKS } from './fault-table.ts';
import { sendHttp } from './http.ts';
import { type ConformOptions, REFERENCE_UNSUBSCRIBED_GROUPS, type SweepTarget } from './options.ts';
import { runSuite } from './run.ts';
import type { TargetSummary } from './summary.ts';

/** One fault as `GET {url}/faults` lists it. */
export interface CatalogueFault {
  name: string;
  group: string;
  operations: string[];
  deviation: 'forbidden' | 'drift' | 'hostile';
  description: string;
}

/** How the suite fared against one fault. */
export interface FaultVerdict {
  fault: string;
  deviation: CatalogueFault['deviation'];
  /** Checks the table says must trip (empty for drift). */
  expected: string[];
  /** Checks that reported a failure or warning. */
  tripped: string[];
  /** forbidden/hostile: every expected check tripped; drift: the suite passed. */
  caught: boolean;
}

/** The outcome of a whole sweep. */
export interface SweepResult {
  /** The suite against the clean server: must pass with no warnings. */
  clean?: TargetSummary;
  faults: FaultVerdict[];
  caught: number;
  total: number;
  /** Catalogue faults the table has no entry for. */
  unknownFaults: string[];
  /** Registered checks that no fault tripped in this sweep. */
  untrippedChecks: string[];
  /** Folder holding the sweep's reports. */
  reportDir: string;
  durationMs: number;
}

/** Operations with a rate limit (interface 8). */
const RATE_LIMITED_OPERATIONS = ['answerSearch', 'urlPreview'];

/** Per-request deadline against hostile faults: long enough for a loopback answer, short enough to keep the sweep fast. */
const HOSTILE_TIMEOUT_MS = 2_000;

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A grep selecting the tests of the given checks on the given operations (describe title, then test title). */
export function sweepGrep(operationIds: string[], checkIds: string[]): string {
  const labels = OPERATIONS.filter((op) => operationIds.includes(op.operationId)).map((op) => escapeRegex(op.label));
  return `(?:${labels.join('|')}) (?:${checkIds.map(escapeRegex).join('|')})(?:\\s|$)`;
}

/** Builds the Playwright project of one fault: only the operations it touches and the checks meant to catch it. */
export function sweepTarget(baseUrl: string, fault: CatalogueFault): SweepTarget {
  const expected = EXPECTED_CHECKS[fault.name] ?? [];
  const all = OPERATIONS.map((op) => op.operationId as string);
  const operations = fault.operations.length > 0 ? fault.operations : all;
  // Forbidden and drift faults get every check on the operations they touch (a fixture check may
  // trip in any test, and a drift fault must trip none); hostile ones need one request per operation.
  const checks =
    fault.deviation === 'hostile'
      ? testsExercising(expected)
      : CHECKS.filter((check) => check.run).map((check) => check.id);
  return {
    name: fault.name,
    baseUrl: `${baseUrl}/faults/${fault.name}`,
    grep: sweepGrep(operations, checks),
    timeoutMs: fault.deviation === 'hostile' ? HOSTILE_TIMEOUT_MS : undefined,
    // Bursts cost a second or two each: only forbidden faults of the rate-limited operations get them.
    rateLimit: fault.deviation === 'forbidden' && operations.some((id) => RATE_LIMITED_OPERATIONS.includes(id)),
  };
}

/** Judges one fault from the summary of its project. */
export function judge(fault: CatalogueFault, summary: TargetSummary | undefined): FaultVerdict {
  const expected = [...(EXPECTED_CHECKS[fault.name] ?? [])];
  const tripped = summary?.tripped ?? [];
  const caught =
    summary !== undefined &&
    (fault.deviation === 'drift'
      ? summary.verdict === 'pass'
      : expected.length > 0 && expected.every((id) => tripped.includes(id)));
  return { fault: fault.name, deviation: fault.deviation, expected, tripped, caught };
}

/** Reads the fault catalogue of a running reference server. */
export async function readCatalogue(url: string): Promise<CatalogueFault[]> {
  const response = await sendHttp({
    method: 'GET',
    url: `${url}/faults`,
    headers: {},
    timeoutMs: 10_000,
    maxBytes: 4_000_000,
  });
  if (response.status !== 200) throw new Error(`GET ${url}/faults answered ${response.status}`);
  return JSON.parse(response.body.toString('utf8')) as CatalogueFault[];
}

/**
 * Runs the suite against the clean reference server and against every fault of its catalogue in
 * one Playwright run (one project per fault), and judges each fault against EXPECTED_CHECKS.
 */
export async function runSweep(
  settings: { only?: string[]; workers?: number; reportDir?: string } = {},
): Promise<SweepResult> {
  const started = Date.now();
  const server = await startReferenceServer({ quiet: true });
  try {
    const catalogue = (await readCatalogue(server.url)).filter(
      (fault) => !settings.only || settings.only.includes(fault.name),
    );
    const targets: SweepTarget[] = [
      ...(settings.only ? [] : [{ name: 'clean', baseUrl: server.url, rateLimit: true }]),
      ...catalogue.map((fault) => sweepTarget(server.url, fault)),
    ];
    const options: ConformOptions = {
      strict: false,
      timeoutMs: 10_000,
      maxBytes: 8 * 1024 * 1024,
      rateLimit: true,
      embedded: true,
      unsubscribedGroups: REFERENCE_UNSUBSCRIBED_GROUPS,
      reportDir: settings.reportDir ?? 'reports/conformance-sweep',
      workers: settings.workers,
      quiet: true,
      sweep: targets,
    };
    const keys = { full: server.keys.full, unsubscribed: server.keys.academicOnly, exhausted: server.keys.exhausted };
    const result = await runSuite({ keys, options });
    if (!result.summary)
      throw new Error(
        `the sweep produced no summary (Playwright exit ${result.playwrightExitCode}):\n${result.output}`,
      );
    const byTarget = new Map(result.summary.targets.map((target) => [target.target, target]));
    const faults = catalogue.map((fault) => judge(fault, byTarget.get(fault.name)));
    const tripped = new Set(
      faults.filter((verdict) => verdict.deviation !== 'drift').flatMap((verdict) => verdict.tripped),
    );
    return {
      clean: byTarget.get('clean'),
      faults,
      caught: faults.filter((verdict) => verdict.caught).length,
      total: faults.length,
      unknownFaults: catalogue.filter((fault) => !(fault.name in EXPECTED_CHECKS)).map((fault) => fault.name),
      untrippedChecks: settings.only ? [] : CHECKS.map((check) => check.id).filter((id) => !tripped.has(id)),
      reportDir: options.reportDir,
      durationMs: Date.now() - started,
    };
  } finally {
    await server.close();
  }
}

/** Renders the sweep as a table: one line per fault, then the score. */
export function renderSweep(result: SweepResult): string {
  const lines = result.faults.map((verdict) => {
    const mark = verdict.caught ? 'caught' : 'MISSED';
    const want = verdict.deviation === 'drift' ? 'conform passes' : verdict.expected.join(', ');
    return `${mark.padEnd(7)} ${verdict.deviation.padEnd(9)} ${verdict.fault.padEnd(44)} want ${want}; tripped ${verdict.tripped.join(', ') || 'nothing'}`;
  });
  if (result.clean)
    lines.unshift(
      `clean   ${result.clean.verdict === 'pass' ? 'passes' : 'FAILS'} (${result.clean.counts.passed} passed, ${result.clean.counts.failed} failed, ${result.clean.counts.warned} warnings)`,
    );
  lines.push(`score: ${result.caught} / ${result.total} faults caught in ${(result.durationMs / 1000).toFixed(1)} s`);
  return lines.join('\n');
}
