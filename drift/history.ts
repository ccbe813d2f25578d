import { appendFileSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { redactSecrets } from '../config/redact.ts';
import { wrapList } from '../page/fold.ts';
import { shortLabel } from '../page/html.ts';
import {
  type Envelope,
  type EnvelopeChange,
  envelopeChanges,
  LATENCY_NOISE,
  latencySpread,
} from '../reporting/envelope.ts';
import { causeOfFinding, type DriftFinding } from './findings.ts';
import { envelopeOfLive, type LiveResult } from './live.ts';
import type { FindingKind } from './walk.ts';

/** Version of the history format; the header line carries it. */
export const HISTORY_VERSION = 1;

/** The target name a history of the embedded reference server carries (its URL changes every run). */
export const EMBEDDED_TARGET = 'embedded reference server';

/** How much a finding matters to a client written against the spec. */
export type DriftSeverity = 'major' | 'minor';

/**
 * Severity of each finding kind: `major` where a client written against the spec may break (a
 * value, type, status or media type it does not expect, a required field gone); `minor` for
 * additions and form (an undocumented field or header, an omitted expected field, number form,
 * an echo normalized).
 */
export const DRIFT_SEVERITY: Record<FindingKind, DriftSeverity> = {
  'undocumented-property': 'minor',
  'missing-property': 'major',
  'missing-expected-property': 'minor',
  'type-changed': 'major',
  'format-changed': 'major',
  'constraint-changed': 'major',
  'new-enum-value': 'major',
  'new-type-value': 'major',
  'undocumented-status': 'major',
  'undocumented-media-type': 'major',
  'unparseable-body': 'major',
  'undocumented-header': 'minor',
  'exponent-number': 'minor',
  'echo-differs': 'minor',
  'ranking-id-by-fragment': 'minor',
};

/** Line 1 of a history file. */
export interface HistoryHeader {
  kgateDriftHistory: typeof HISTORY_VERSION;
  /** The target the history is of: its base URL (key masked), or EMBEDDED_TARGET. */
  target: string;
  createdAt: string;
}

/** One `kgate drift live` run, written before the findings it saw. */
export interface HistoryRun {
  type: 'run';
  /** The run id (also the name of its report folder). */
  run: string;
  /** When the run started (ISO 8601, UTC). */
  at: string;
  /** Requests that got an answer. */
  requests: number;
  /** Findings the run saw (the finding lines that follow). */
  findings: number;
  /** Operations that answered at least once: a finding of another operation was not checked by this run. */
  answered: string[];
  /** What the run measured of the deployment's envelope (absent in lines of older runs). */
  envelope?: Envelope;
}

/** One finding seen by one run, with its totals over the history up to and including that run. */
export interface HistoryFinding {
  type: 'finding';
  run: string;
  at: string;
  fingerprint: string;
  operation: string;
  kind: FindingKind;
  severity: DriftSeverity;
  status: number;
  /** JSON path with array indexes as `[]`. */
  path: string;
  message: string;
  /** The finding's cause (see causeOf in findings.ts): one change on several operations and statuses shares it (absent in lines of older runs). */
  cause?: string;
  /** Time of the first run that saw it. */
  firstSeen: string;
  /** Time of this run. */
  lastSeen: string;
  /** Runs that saw it, this one included. */
  timesSeen: number;
}

/** A line of the file that could not be read: skipped, named, and kept aside on the next write. */
export interface HistoryProblem {
  /** 1-based line number. */
  line: number;
  reason: string;
  text: string;
}

/** A history file as read. */
export interface History {
  header: HistoryHeader;
  runs: HistoryRun[];
  findings: HistoryFinding[];
  /** Lines that were skipped. */
  problems: HistoryProblem[];
  /** The valid lines, verbatim (header first), which a write keeps as they were. */
  lines: string[];
}

/** A history that cannot be used at all (not a history, another version, another target): exit 2. */
export class HistoryError extends Error {
  override name = 'HistoryError';
}

/** The name a target has in a history: its base URL without a trailing slash, query or credentials, key masked. */
export function historyTarget(baseUrl: string | undefined): string {
  if (baseUrl === undefined) return EMBEDDED_TARGET;
  try {
    const url = new URL(baseUrl);
    url.username = '';
    url.password = '';
    url.search = '';
    url.hash = '';
    return redactSecrets(url.toString().replace(/\/+$/, ''));
  } catch {
    return redactSecrets(baseUrl.replace(/\/+$/, ''));
  }
}

const isString = (value: unknown): value is string => typeof value === 'string';

function runProblem(value: Record<string, unknown>): string | undefined {
  if (!isString(value.run) || !isString(value.at) || Number.isNaN(Date.parse(value.at)))
    return 'run without id or time';
  if (!Array.isArray(value.answered) || !value.answered.every(isString)) return 'run without its answered operations';
  if (typeof value.requests !== 'number' || typeof value.findings !== 'number') return 'run without its counts';
  return undefined;
}

function findingProblem(value: Record<string, unknown>): string | undefined {
  for (const field of ['run', 'at', 'fingerprint', 'operation', 'kind', 'path', 'firstSeen', 'lastSeen'] as const)
    if (!isString(value[field])) return `finding without ${field}`;
  if (typeof value.timesSeen !== 'number' || typeof value.status !== 'number') return 'finding without its counts';
  return undefined;
}

/**
 * Parses a history file's text. A line that is not valid (truncated, corrupt, unknown type) is
 * skipped and named in `problems`; the rest is read. A first line that is not a header of this
 * version throws: the file is not a history this kgate may append to.
 */
export function parseHistory(text: string, file: string): History | undefined {
  const raw = text.split('\n');
  if (raw.at(-1) === '') raw.pop();
  if (raw.length === 0) return undefined;
  let header: HistoryHeader;
  try {
    header = JSON.parse(raw[0]!) as HistoryHeader;
  } catch {
    throw new HistoryError(`${file} line 1 is not a kgate drift history header (JSON Lines, written by --history)`);
  }
  if (typeof header !== 'object' || header === null || !('kgateDriftHistory' in header))
    throw new HistoryError(`${file} line 1 is not a kgate drift history header (JSON Lines, written by --history)`);
  if (header.kgateDriftHistory !== HISTORY_VERSION || !isString(header.target))
    throw new HistoryError(
      `${file} is a kgate drift history of version ${String(header.kgateDriftHistory)}; this kgate reads version ${HISTORY_VERSION}`,
    );
  const history: History = { header, runs: [], findings: [], problems: [], lines: [raw[0]!] };
  raw.slice(1).forEach((text, index) => {
    const line = index + 2;
    if (text.trim() === '') return;
    let value: Record<string, unknown>;
    try {
      value = JSON.parse(text) as Record<string, unknown>;
    } catch {
      history.problems.push({ line, reason: 'not JSON (truncated or corrupt)', text });
      return;
    }
    const problem =
      typeof value !== 'object' || value === null
        ? 'not an object'
        : value.type === 'run'
          ? runProblem(value)
          : value.type === 'finding'
            ? findingProblem(value)
            : `unknown line type ${JSON.stringify(value.type)}`;
    if (problem) {
      history.problems.push({ line, reason: problem, text });
      return;
    }
    history.lines.push(text);
    if (value.type === 'run') history.runs.push(value as unknown as HistoryRun);
    else history.findings.push(value as unknown as HistoryFinding);
  });
  // Findings whose run line was lost still count: the run is rebuilt from them (answered: their operations).
  const known = new Set(history.runs.map((run) => run.run));
  for (const finding of history.findings) {
    if (known.has(finding.run)) continue;
    known.add(finding.run);
    history.runs.push({ type: 'run', run: finding.run, at: finding.at, requests: 0, findings: 0, answered: [] });
  }
  const runs = new Map(history.runs.map((run) => [run.run, run]));
  for (const finding of history.findings) {
    const run = runs.get(finding.run)!;
    if (run.requests === 0 && !run.answered.includes(finding.operation)) run.answered.push(finding.operation);
  }
  history.runs.sort((a, b) => a.at.localeCompare(b.at));
  return history;
}

/** Reads a history file; undefined when it does not exist or is empty. */
export function readHistory(file: string): History | undefined {
  if (!existsSync(file)) return undefined;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new HistoryError(
      `cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
  return parseHistory(text, file);
}

/** Refuses a history of another target. */
export function checkTarget(history: History | undefined, target: string, file: string): void {
  if (history && history.header.target !== target)
    throw new HistoryError(`${file} is the drift history of ${history.header.target}, not of ${target}`);
}

/** The lines one run adds: its run line, then one line per finding with its totals so far. */
export function runLines(
  history: History | undefined,
  result: Pick<LiveResult, 'startedAt' | 'findings' | 'cases'>,
  runId: string,
): { run: HistoryRun; findings: HistoryFinding[] } {
  const at = result.startedAt;
  const answered = [
    ...new Set(result.cases.filter((item) => item.status !== undefined).map((item) => item.operation)),
  ].sort();
  const run: HistoryRun = {
    type: 'run',
    run: runId,
    at,
    requests: result.cases.filter((item) => item.status !== undefined).length,
    findings: result.findings.length,
    answered,
    ...(envelopeOfLive(result as LiveResult) ? { envelope: envelopeOfLive(result as LiveResult) } : {}),
  };
  const previous = new Map<string, HistoryFinding>();
  for (const finding of history?.findings ?? []) {
    const before = previous.get(finding.fingerprint);
    if (!before || before.lastSeen <= finding.lastSeen) previous.set(finding.fingerprint, finding);
  }
  const findings = result.findings.map((finding: DriftFinding): HistoryFinding => {
    const before = previous.get(finding.fingerprint);
    return {
      type: 'finding',
      run: runId,
      at,
      fingerprint: finding.fingerprint,
      operation: finding.operation,
      kind: finding.kind,
      severity: DRIFT_SEVERITY[finding.kind] ?? 'minor',
      status: finding.status,
      path: finding.normalizedPath,
      message: finding.message,
      ...(finding.cause ? { cause: finding.cause } : {}),
      firstSeen: before?.firstSeen ?? at,
      lastSeen: at,
      timesSeen: (before?.timesSeen ?? 0) + 1,
    };
  });
  return { run, findings };
}

/**
 * Appends a run to the history file: writes the valid lines read, then the new ones, to a new file
 * and renames it into place, so an interrupted write leaves the old file whole. Lines that could
 * not be read are appended to `<file>.rejected` first, so nothing is lost. Returns the history
 * as written.
 */
export function appendRun(
  file: string,
  history: History | undefined,
  target: string,
  result: Pick<LiveResult, 'startedAt' | 'findings' | 'cases'>,
  runId: string,
): History {
  const header: HistoryHeader = history?.header ?? {
    kgateDriftHistory: HISTORY_VERSION,
    target,
    createdAt: result.startedAt,
  };
  const added = runLines(history, result, runId);
  const newLines = [added.run, ...added.findings].map((line) => redactSecrets(JSON.stringify(line)));
  const lines = [...(history?.lines ?? [JSON.stringify(header)]), ...newLines];
  if (history && history.problems.length > 0) {
    const stamp = new Date().toISOString();
    appendFileSync(
      `${file}.rejected`,
      history.problems
        .map((problem) => `# ${stamp} line ${problem.line}: ${problem.reason}\n${problem.text}\n`)
        .join(''),
    );
  }
  const temporary = `${file}.tmp-${process.pid}-${Date.now()}`;
  try {
    writeFileSync(temporary, `${lines.join('\n')}\n`);
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
  return {
    header,
    runs: [...(history?.runs ?? []), added.run],
    findings: [...(history?.findings ?? []), ...added.findings],
    problems: [],
    lines,
  };
}

/** Where a finding stands as of the last run of a history. */
export type HistoryState = 'new' | 'ongoing' | 'gone' | 'flaky';

/** A finding's standing and its timeline over the history's runs. */
export interface FindingHistory {
  fingerprint: string;
  operation: string;
  kind: FindingKind;
  severity: DriftSeverity;
  status: number;
  path: string;
  message: string;
  /** The cause it shares with findings of other operations and statuses (see causeOfFinding). */
  cause: string;
  /** new: first seen by the last run; ongoing: seen since `since` without a break; gone: not seen since `since`; flaky: came back after being gone (`since`: first seen). */
  state: HistoryState;
  since: string;
  /** Whether the last run saw it. */
  present: boolean;
  /** The last run did not check its operation (no answer): it may or may not still be there. */
  unchecked?: boolean;
  firstSeen: string;
  lastSeen: string;
  timesSeen: number;
  /** Per run of the history, in order: seen, not seen although the operation answered, or not checked. */
  timeline: Array<'seen' | 'absent' | 'unchecked'>;
}

/** Per run of a history: seen, not seen although the operation answered, or not checked. */
type Timeline = FindingHistory['timeline'];

/** Where something with this timeline stands as of the last run (the timeline has at least one `seen`). */
function standing(
  timeline: Timeline,
  runs: History['runs'],
): Pick<FindingHistory, 'state' | 'since' | 'present' | 'unchecked' | 'firstSeen' | 'lastSeen' | 'timesSeen'> {
  const last = runs.length - 1;
  const first = timeline.indexOf('seen');
  const lastSeenAt = timeline.lastIndexOf('seen');
  // Came back: seen, then checked and not seen, then seen again.
  let returns = 0;
  let gone = false;
  for (let position = first; position <= last; position += 1) {
    if (timeline[position] === 'absent') gone = true;
    else if (timeline[position] === 'seen' && gone) {
      returns += 1;
      gone = false;
    }
  }
  const goneAt = timeline.findIndex((state, position) => position > lastSeenAt && state === 'absent');
  let streakStart = lastSeenAt;
  while (streakStart > 0 && timeline[streakStart - 1] !== 'absent' && streakStart > first) streakStart -= 1;
  const present = lastSeenAt === last;
  const state: HistoryState =
    returns > 0 ? 'flaky' : present ? (first === last ? 'new' : 'ongoing') : goneAt >= 0 ? 'gone' : 'ongoing';
  const since =
    state === 'gone'
      ? runs[goneAt]!.at
      : state === 'new'
        ? runs[last]!.at
        : state === 'flaky'
          ? runs[first]!.at
          : runs[streakStart]!.at;
  return {
    state,
    since,
    present,
    ...(!present && goneAt < 0 ? { unchecked: true } : {}),
    firstSeen: runs[first]!.at,
    lastSeen: runs[lastSeenAt]!.at,
    timesSeen: timeline.filter((mark) => mark === 'seen').length,
  };
}

const STATE_ORDER: Record<HistoryState, number> = { new: 0, flaky: 1, ongoing: 2, gone: 3 };

/** The standing of every finding of a history as of its last run, ordered by operation, then state. */
export function historyStatus(history: History): FindingHistory[] {
  const runs = history.runs;
  const index = new Map(runs.map((run, position) => [run.run, position]));
  const byFingerprint = new Map<string, HistoryFinding[]>();
  for (const finding of history.findings)
    byFingerprint.set(finding.fingerprint, [...(byFingerprint.get(finding.fingerprint) ?? []), finding]);
  const out: FindingHistory[] = [];
  for (const [fingerprint, seenLines] of byFingerprint) {
    const seenAt = new Set(seenLines.map((line) => index.get(line.run)!));
    const latest = seenLines.reduce((a, b) => (index.get(b.run)! >= index.get(a.run)! ? b : a));
    const timeline = runs.map((run, position) =>
      seenAt.has(position) ? 'seen' : run.answered.includes(latest.operation) ? 'absent' : 'unchecked',
    ) as Timeline;
    out.push({
      fingerprint,
      operation: latest.operation,
      kind: latest.kind,
      severity: latest.severity ?? DRIFT_SEVERITY[latest.kind] ?? 'minor',
      status: latest.status,
      path: latest.path,
      message: latest.message,
      cause: causeOfFinding({ ...latest, normalizedPath: latest.path }),
      ...standing(timeline, runs),
      timeline,
    });
  }
  return out.sort(
    (a, b) =>
      a.operation.localeCompare(b.operation) ||
      STATE_ORDER[a.state] - STATE_ORDER[b.state] ||
      a.path.localeCompare(b.path) ||
      a.kind.localeCompare(b.kind),
  );
}

/** One cause of drift over a history: its places (one finding each) and their timelines merged. */
export interface ChangeHistory
  extends Pick<FindingHistory, 'kind' | 'severity' | 'path' | 'message' | 'cause' | 'timeline'>,
    ReturnType<typeof standing> {
  /** The findings of this cause, one per operation and status. */
  places: FindingHistory[];
}

/**
 * The findings of a history grouped by cause, each judged over its merged timeline (a run saw the
 * change when it saw any of its places; a run that checked a place and saw none did not), ordered
 * by state, then path.
 */
export function historyChanges(findings: readonly FindingHistory[], runs: History['runs']): ChangeHistory[] {
  const byCause = new Map<string, FindingHistory[]>();
  for (const finding of findings) byCause.set(finding.cause, [...(byCause.get(finding.cause) ?? []), finding]);
  const changes = [...byCause.values()].map((places): ChangeHistory => {
    const timeline = places[0]!.timeline.map((_, position) =>
      places.some((place) => place.timeline[position] === 'seen')
        ? 'seen'
        : places.some((place) => place.timeline[position] === 'absent')
          ? 'absent'
          : 'unchecked',
    ) as Timeline;
    const first = places[0]!;
    return {
      cause: first.cause,
      kind: first.kind,
      severity: places.some((place) => place.severity === 'major') ? 'major' : first.severity,
      path: first.path,
      message: first.message,
      timeline,
      ...standing(timeline, runs),
      places,
    };
  });
  return changes.sort(
    (a, b) =>
      STATE_ORDER[a.state] - STATE_ORDER[b.state] || a.path.localeCompare(b.path) || a.kind.localeCompare(b.kind),
  );
}

/** A time as the reports print it: `2026-11-24 05:40 UTC`. */
export function shortTime(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** The state of a finding as one phrase: `new`, `ongoing since ...`, `gone since ...`, `flaky (seen 3 of 5 runs)`. */
export function statePhrase(
  finding: Pick<FindingHistory, 'timeline' | 'state' | 'since' | 'unchecked' | 'timesSeen' | 'present'>,
): string {
  const checked = finding.timeline
    .slice(finding.timeline.indexOf('seen'))
    .filter((state) => state !== 'unchecked').length;
  switch (finding.state) {
    case 'new':
      return 'new';
    case 'ongoing':
      return `ongoing since ${shortTime(finding.since)}${finding.unchecked ? ' (not checked by the last run)' : ''}`;
    case 'gone':
      return `gone since ${shortTime(finding.since)}`;
    case 'flaky':
      return `flaky (seen in ${finding.timesSeen} of ${checked} runs since ${shortTime(finding.since)}; ${finding.present ? 'seen' : 'not seen'} in the last)`;
  }
}

const STATE_LABEL: Record<HistoryState, string> = {
  new: 'NEW    ',
  ongoing: 'ongoing',
  gone: 'gone   ',
  flaky: 'FLAKY  ',
};

/** One terminal line per finding of a history. */
export function historyLine(finding: FindingHistory): string {
  return `${STATE_LABEL[finding.state]} ${finding.kind} ${finding.operation} ${finding.status} ${finding.path} [${finding.fingerprint}]: ${statePhrase(finding)}; first seen ${shortTime(finding.firstSeen)}, last seen ${shortTime(finding.lastSeen)}, ${finding.timesSeen}x`;
}

/**
 * The terminal lines of one change of a history: its state, kind, path, standing and when it was
 * seen; then, for a change of several places, the places (`evaluate GET 200`).
 */
export function historyChangeLines(change: ChangeHistory): string[] {
  if (change.places.length === 1) return [historyLine(change.places[0]!)];
  const head = `${STATE_LABEL[change.state]} ${change.kind} ${change.path} (${change.places.length} places): ${statePhrase(change)}; first seen ${shortTime(change.firstSeen)}, last seen ${shortTime(change.lastSeen)}, ${change.timesSeen}x`;
  return [head, ...wrapList(change.places.map(placeText), '          ')];
}

/** Where a finding was seen, short: `evaluate GET 200`; a header comes with every answer: `evaluate GET`. */
export function placeText(place: Pick<DriftFinding, 'operation' | 'status' | 'kind'>): string {
  return place.kind === 'undocumented-header'
    ? shortLabel(place.operation)
    : `${shortLabel(place.operation)} ${place.status}`;
}

/** Counts per state. */
export function stateCounts(findings: readonly Pick<FindingHistory, 'state'>[]): Record<HistoryState, number> {
  const counts: Record<HistoryState, number> = { new: 0, ongoing: 0, gone: 0, flaky: 0 };
  for (const finding of findings) counts[finding.state] += 1;
  return counts;
}

/** What `--json` and drift.json carry of a history. */
export interface HistoryReport {
  file: string;
  version: typeof HISTORY_VERSION;
  target: string;
  runs: Array<Pick<HistoryRun, 'run' | 'at' | 'requests' | 'findings'>>;
  /** Findings per state, one per operation and status. */
  counts: Record<HistoryState, number>;
  findings: FindingHistory[];
  /** The findings grouped by cause: one change, however many operations and statuses it touched. */
  changes: ChangeHistory[];
  /** Changes per state: what the reports' headline counts. */
  changeCounts: Record<HistoryState, number>;
  /** Lines skipped when the file was read (named by number). */
  problems: Array<Pick<HistoryProblem, 'line' | 'reason'>>;
  /** How the envelope changed at the last run, against the run before it (drift of the deployment, not a failure). */
  envelopeChanges?: EnvelopeChange[];
}

/**
 * How the deployment's envelope changed at the last run of a history against the run before it:
 * limits, servers and protocol as they differ, a p95 only when it moved beyond compare's noise rule
 * (10 % and 5 ms) and beyond 3 x the largest move between earlier consecutive runs.
 */
export function historyEnvelopeChanges(runs: readonly HistoryRun[]): EnvelopeChange[] {
  const series = runs.map((run) => run.envelope).filter((envelope): envelope is Envelope => envelope !== undefined);
  if (series.length < 2) return [];
  const [before, after] = [series.at(-2)!, series.at(-1)!];
  return envelopeChanges(before, after, { ...LATENCY_NOISE, spread: latencySpread(series.slice(0, -1)) });
}

/**
 * The history report of a history (as of its last run). With `since` (an ISO time), the states are
 * still judged over the whole history (a finding older than `since` is not new), but only the runs
 * from `since` on are shown, with the findings seen in them or gone in them.
 */
export function historyReport(
  file: string,
  history: History,
  problems: HistoryProblem[] = history.problems,
  since?: string,
): HistoryReport {
  let findings = historyStatus(history);
  let changes = historyChanges(findings, history.runs);
  let runs = history.runs;
  if (since !== undefined) {
    const from = runs.findIndex((run) => run.at >= since);
    const start = from < 0 ? runs.length : from;
    runs = runs.slice(start);
    const shown = (item: Pick<FindingHistory, 'lastSeen' | 'state' | 'since'>) =>
      item.lastSeen >= since || (item.state === 'gone' && item.since >= since);
    findings = findings.filter(shown).map((finding) => ({ ...finding, timeline: finding.timeline.slice(start) }));
    changes = changes.filter(shown).map((change) => ({
      ...change,
      timeline: change.timeline.slice(start),
      places: change.places.filter(shown).map((place) => ({ ...place, timeline: place.timeline.slice(start) })),
    }));
  }
  return {
    file,
    version: HISTORY_VERSION,
    target: history.header.target,
    runs: runs.map(({ run, at, requests, findings: count }) => ({ run, at, requests, findings: count })),
    counts: stateCounts(findings),
    findings,
    changes,
    changeCounts: stateCounts(changes),
    problems: problems.map(({ line, reason }) => ({ line, reason })),
    envelopeChanges: historyEnvelopeChanges(history.runs),
  };
}

/** One line naming a skipped line of the file. */
export function problemLine(file: string, problem: Pick<HistoryProblem, 'line' | 'reason'>): string {
  return `${file} line ${problem.line} skipped: ${problem.reason}; the lines before and after it are kept (the line itself goes to ${file}.rejected on the next write)`;
}
