import type { Check } from '../contracts/checks/registry.ts';
import { type Failure, formatFailure } from '../contracts/failure.ts';
import { appliesAt, missingShards, type RunSummary, type TargetSummary } from './summary.ts';

/** Escapes text for an XML attribute or element. */
export function xmlEscape(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/[^\x09\x0a\x0d\x20-\ud7ff\ue000-\ufffd]/gu, '');
}

function testcase(target: TargetSummary, operation: string, check: string, label: string): string {
  const cell = target.matrix[operation]?.[check];
  const of = (list: Failure[]) => list.filter((item) => item.operation === operation && item.check === check);
  const open = `    <testcase classname="${xmlEscape(label)}" name="${xmlEscape(check)}">`;
  if (cell === 'fail') {
    const failures = of(target.failures);
    const text = failures.map(formatFailure).join('\n\n') || 'failed';
    return `${open}\n      <failure message="${xmlEscape(failures[0]?.title ?? 'failed')}">${xmlEscape(text)}</failure>\n    </testcase>`;
  }
  if (cell === 'known') {
    // A failure the baseline accepts: reported like an expected failure, as a skipped case with its reason.
    const known = of(target.known ?? []);
    const reason = known[0]?.baseline?.reason ?? 'listed in the baseline';
    const text = known.map(formatFailure).join('\n\n');
    return `${open}\n      <skipped message="${xmlEscape(`known failure (baseline): ${reason}`)}">${xmlEscape(text)}</skipped>\n    </testcase>`;
  }
  if (cell === 'skip') {
    const reason = target.skips.find((skip) => skip.operation === operation && skip.check === check)?.reason;
    return `${open}\n      <skipped message="${xmlEscape(reason ?? 'skipped')}"/>\n    </testcase>`;
  }
  if (cell === 'warn') {
    const text = of(target.warnings).map(formatFailure).join('\n\n');
    return `${open}\n      <system-out>${xmlEscape(`warning (fails under --strict)\n${text}`)}</system-out>\n    </testcase>`;
  }
  return `${open}</testcase>`;
}

/**
 * Renders a run as JUnit XML with one test case per cell of the operation x check matrix, so CI
 * systems show the same verdict as the summary: a defect reported once is one failed case, and a
 * finding carried by another test (a schema failure seen while paging) fails the cell it belongs to.
 */
export function renderJunit(run: RunSummary, checks: readonly Check[]): string {
  const suites: string[] = [];
  for (const target of run.targets) {
    for (const operation of Object.keys(target.matrix)) {
      const ids = checks.map((check) => check.id).filter((id) => target.matrix[operation]![id] !== undefined);
      if (ids.length === 0) continue;
      const cells = ids.map((id) => target.matrix[operation]![id]);
      const name = run.targets.length > 1 ? `${target.target} ${operation}` : operation;
      const count = (cell: string) => cells.filter((c) => c === cell).length;
      // Checks --checks left out are no test case (the counts stay the verdict's cells), but are
      // named, apart from the checks that do not apply to the operation, which are not.
      const left = checks.filter(
        (check) =>
          run.notSelected?.includes(check.id) &&
          target.matrix[operation]![check.id] === undefined &&
          appliesAt(check, operation),
      );
      suites.push(
        `  <testsuite name="${xmlEscape(name)}" tests="${ids.length}" failures="${count('fail')}" skipped="${count('skip') + count('known')}" errors="0">`,
        ...(left.length > 0
          ? [
              `    <properties><property name="not selected (--checks)" value="${xmlEscape(left.map((check) => check.id).join(', '))}"/></properties>`,
            ]
          : []),
        ...ids.map((id) => testcase(target, operation, id, name)),
        '  </testsuite>',
      );
    }
  }
  const all: string[] = run.targets.flatMap((target) =>
    Object.values(target.matrix).flatMap((row) => Object.values(row)),
  );
  if (run.shards) {
    // A merged run: one case per shard, so a missing shard fails the CI's view as it fails the verdict.
    const shards = Array.from({ length: run.shards.total }, (_, index) => index + 1);
    const missing = new Set(run.shards.missing);
    suites.push(
      `  <testsuite name="kgate shards" tests="${shards.length}" failures="${missing.size}" skipped="0" errors="0">`,
      ...shards.map((shard) => {
        const open = `    <testcase classname="kgate shards" name="shard ${shard} of ${run.shards!.total}">`;
        if (!missing.has(shard)) return `${open}</testcase>`;
        const message = missingShards({ ...run.shards!, missing: [shard] })!;
        return `${open}\n      <failure message="${xmlEscape(message)}">${xmlEscape(`${message}: its run folder was not among those merged`)}</failure>\n    </testcase>`;
      }),
      '  </testsuite>',
    );
    all.push(...shards.map((shard) => (missing.has(shard) ? 'fail' : 'pass')));
  }
  if (run.envelopeBreaches && run.envelopeBreaches.length > 0) {
    // Bounds of the configuration file's envelope: one failed case each, as they fail the verdict.
    suites.push(
      `  <testsuite name="kgate envelope bounds" tests="${run.envelopeBreaches.length}" failures="${run.envelopeBreaches.length}" skipped="0" errors="0">`,
      ...run.envelopeBreaches.map(
        (breach) =>
          `    <testcase classname="kgate envelope" name="${xmlEscape(breach.split(':')[0]!)}">\n      <failure message="${xmlEscape(breach)}">${xmlEscape(breach)}</failure>\n    </testcase>`,
      ),
      '  </testsuite>',
    );
    all.push(...run.envelopeBreaches.map(() => 'fail'));
  }
  const failures = all.filter((cell) => cell === 'fail').length;
  const skipped = all.filter((cell) => cell === 'skip' || cell === 'known').length;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="kgate conformance" tests="${all.length}" failures="${failures}" skipped="${skipped}" errors="0" time="${(run.durationMs / 1000).toFixed(3)}">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}
