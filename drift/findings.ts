import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import type { FindingKind, WalkIssue } from './walk.ts';

/** One drift finding: a way a target's responses differ from the spec, seen one or more times. */
export interface DriftFinding {
  /** Stable id: hash of kind, operation, normalized path, status (and the new value for value kinds). */
  fingerprint: string;
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
