import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import type { FindingKind, WalkIssue } from './walk.ts';

/** One drift finding: a way a target's responses differ from the spec, seen one or more times. */
export interface DriftFinding {
  /** Stable id: hash of kind, operation, normalized path, status (and the new value for value kinds). */
  fingerprint: string;
  /**
   * Stable id of the cause: hash of kind, normalized path (and the new value for value kinds), without
   * the operation and status, so that one change seen on many operations and statuses is one cause
   * (absent in findings of older runs).
   */
  cause?: string;
  kind: FindingKind;
  operationId: string;
  /** `GET /academic/v1.0/evaluate`. */
  operation: string;
  status: number;
  /** Media type of the response, when it had one. */
  mediaType?: string;
  /** JSON path of the first occurrence, with array indexes. */
  path: string;
  /** JSON path with array indexes as `[]`. */
  normalizedPath: string;
  /** One line: what differs from the spec. */
  message: string;
  /** A sample of the value found (never part of the fingerprint, except for new values). */
  sample?: string;
  /** How many times it was seen in this run. */
  occurrences: number;
  /** The first request (battery case or HAR entry) that showed it. */
  seenIn: string;
  /** True when the baseline already lists this fingerprint. */
  known: boolean;
}

/** Kinds whose finding is one per operation whatever the status (a header comes with every answer). */
const STATUS_FREE_KINDS: ReadonlySet<FindingKind> = new Set(['undocumented-header']);

/** Computes the fingerprint of an issue on an operation and status. Sample values never enter it. */
export function fingerprint(
  issue: Pick<WalkIssue, 'kind' | 'normalizedPath' | 'identity'>,
  operationId: string,
  status: number,
) {
  const statusPart = STATUS_FREE_KINDS.has(issue.kind) ? '*' : String(status);
  const material = [issue.kind, operationId, issue.normalizedPath, statusPart, issue.identity ?? ''].join('\n');
  return createHash('sha256').update(material).digest('hex').slice(0, 16);
}

/**
 * Computes the cause of an issue: what differs, wherever it was seen. An undocumented status keeps
 * its status (another status is another cause); every other kind is one cause across operations
 * and statuses (the same undocumented field on every answer is one change).
 */
export function causeOf(issue: Pick<WalkIssue, 'kind' | 'normalizedPath' | 'identity'>, status: number): string {
  const statusPart = issue.kind === 'undocumented-status' ? String(status) : '*';
  const material = [issue.kind, issue.normalizedPath, statusPart, issue.identity ?? ''].join('\n');
  return createHash('sha256').update(material).digest('hex').slice(0, 12);
}

/** One cause of drift and every place (operation and status) it showed: one finding each. */
export interface DriftChange {
  cause: string;
  kind: FindingKind;
  /** JSON path with array indexes as `[]` (or `header:<name>`, `$` for the status or body). */
  path: string;
  /** What differs, as the first place saw it. */
  message: string;
  sample?: string;
  /** True when the baseline lists every place: a change with one new place is new. */
  known: boolean;
  /** The findings, in the order of the findings given. */
  places: DriftFinding[];
}

/** The cause of a finding: its own, or for a finding of an older run, its kind and path (value kinds: and message). */
export function causeOfFinding(
  finding: Pick<DriftFinding, 'cause' | 'kind' | 'normalizedPath' | 'message' | 'status'>,
): string {
  if (finding.cause) return finding.cause;
  const valueKinds: FindingKind[] = ['new-enum-value', 'new-type-value', 'undocumented-media-type'];
  return [
    finding.kind,
    finding.normalizedPath,
    finding.kind === 'undocumented-status' ? finding.status : '*',
    valueKinds.includes(finding.kind) ? finding.message : '',
  ].join('\n');
}

/** Groups findings by cause: one change per cause, with the places it touched, in the order first seen. */
export function groupByCause(findings: readonly DriftFinding[]): DriftChange[] {
  const changes = new Map<string, DriftChange>();
  for (const finding of findings) {
    const cause = causeOfFinding(finding);
    const change = changes.get(cause);
    if (change) {
      change.places.push(finding);
      change.known &&= finding.known;
      continue;
    }
    changes.set(cause, {
      cause: finding.cause ?? cause,
      kind: finding.kind,
      path: finding.normalizedPath,
      message: finding.message,
      ...(finding.sample !== undefined ? { sample: finding.sample } : {}),
      known: finding.known,
      places: [finding],
    });
  }
  return [...changes.values()];
}

/** How many causes there are, how many are new (a new place) and how many known. */
export function causeCounts(changes: readonly DriftChange[]): { total: number; new: number; known: number } {
  const known = changes.filter((change) => change.known).length;
  return { total: changes.length, new: changes.length - known, known };
}

/** Collects issues into findings, merging repeats of the same fingerprint. */
export class FindingSet {
  private readonly byFingerprint = new Map<string, DriftFinding>();

  /** Adds the issues one response showed. */
  add(
    issues: WalkIssue[],
    context: { operationId: string; operation: string; status: number; mediaType?: string; seenIn: string },
  ): void {
    for (const issue of issues) {
      const id = fingerprint(issue, context.operationId, context.status);
      const existing = this.byFingerprint.get(id);
      if (existing) {
        existing.occurrences += 1;
        continue;
      }
      this.byFingerprint.set(id, {
        fingerprint: id,
        cause: causeOf(issue, context.status),
        kind: issue.kind,
        operationId: context.operationId,
        operation: context.operation,
        status: context.status,
        ...(context.mediaType ? { mediaType: context.mediaType } : {}),
        path: issue.path,
        normalizedPath: issue.normalizedPath,
        message: issue.message,
        ...(issue.sample !== undefined ? { sample: issue.sample } : {}),
        occurrences: 1,
        seenIn: context.seenIn,
        known: false,
      });
    }
  }

  /** The findings, ordered by operation, status, path and kind. */
  list(): DriftFinding[] {
    return [...this.byFingerprint.values()].sort(
      (a, b) =>
        a.operation.localeCompare(b.operation) ||
        a.status - b.status ||
        a.normalizedPath.localeCompare(b.normalizedPath) ||
        a.kind.localeCompare(b.kind),
    );
  }
}

/** The file `--baseline` reads and `--update-baseline` writes. */
export interface Baseline {
  kgateDriftBaseline: 1;
  createdAt: string;
  findings: Array<Pick<DriftFinding, 'fingerprint' | 'kind' | 'operation' | 'status' | 'normalizedPath' | 'message'>>;
}

/** Reads a baseline file; throws an Error naming the file when it is not one. */
export function readBaseline(file: string): Baseline {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`cannot read baseline ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const baseline = parsed as Partial<Baseline>;
  if (baseline?.kgateDriftBaseline !== 1 || !Array.isArray(baseline.findings)) {
    throw new Error(`${file} is not a kgate drift baseline (written by kgate drift live --update-baseline)`);
  }
  return baseline as Baseline;
}

/** Writes the findings as a baseline (sorted, without samples, so that it diffs well in review). */
export function writeBaseline(file: string, findings: DriftFinding[], now = new Date()): Baseline {
  const baseline: Baseline = {
    kgateDriftBaseline: 1,
    createdAt: now.toISOString(),
    findings: findings
      .map(({ fingerprint: id, kind, operation, status, normalizedPath, message }) => ({
        fingerprint: id,
        kind,
        operation,
        status,
        normalizedPath,
        message,
      }))
      .sort((a, b) => a.fingerprint.localeCompare(b.fingerprint)),
  };
  writeFileSync(file, `${JSON.stringify(baseline, null, 2)}\n`);
  return baseline;
}

/** Marks findings whose fingerprint the baseline lists as known; returns the fingerprints it lists that no longer occur. */
export function applyBaseline(findings: DriftFinding[], baseline: Baseline): string[] {
  const listed = new Set(baseline.findings.map((finding) => finding.fingerprint));
  for (const finding of findings) finding.known = listed.has(finding.fingerprint);
  const seen = new Set(findings.map((finding) => finding.fingerprint));
  return [...listed].filter((id) => !seen.has(id));
}
