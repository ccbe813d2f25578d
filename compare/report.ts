// What a comparison writes: the terminal summary (also summary.md), JUnit XML (one case per
// operation: behaviour, and latency when measured), summary.json and the HTML report.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { redactSecrets } from '../config/redact.ts';
import { foldLine, wrapList } from '../page/fold.ts';
import { shortLabel } from '../page/html.ts';
import { writeEnvelope } from '../reporting/envelope.ts';
import { xmlEscape } from '../reporting/junit.ts';
import { renderCompareHtml } from './report-html.ts';
import {
  type CompareResult,
  type Difference,
  type DifferenceGroup,
  envelopeOfCompare,
  groupDifferences,
  type LatencyItem,
  samplesOf,
} from './run.ts';
import { comparePhrase, kindText, showValue } from './words.ts';

/** The files of a comparison's report folder. */
export const COMPARE_FILES = {
  markdown: 'summary.md',
  json: 'summary.json',
  junit: 'junit.xml',
  html: 'report.html',
} as const;

function shownValue(diff: Difference, side: 'candidate' | 'current'): string {
  if (diff.kind === 'absent-in-candidate' && side === 'candidate') return '(absent)';
  if (diff.kind === 'absent-in-current' && side === 'current') return '(absent)';
  return showValue(diff[side]);
}

function formatDifference(diff: Difference, reportDir?: string): string {
  const fold = (curl: string, side: string) =>
    foldLine(curl, { dir: reportDir, stem: `compare-${diff.operationId}-${side}` });
  return [
    `  ${diff.pointer || '(status or whole body)'}: ${kindText(diff.kind)} (${diff.seenIn} request(s))`,
    `    candidate:  ${shownValue(diff, 'candidate')}`,
    `    current:    ${shownValue(diff, 'current')}`,
    `    request:    ${diff.example.request}${diff.example.pointer !== diff.pointer ? ` at ${diff.example.pointer}` : ''}`,
    `    candidate:  ${fold(diff.example.candidateCurl, 'candidate')}`,
    `    current:    ${fold(diff.example.currentCurl, 'current')}`,
  ].join('\n');
}

/** One difference group as the terminal shows it: the cause once, its places, then its first place's example. */
function formatGroup(group: DifferenceGroup, reportDir?: string): string {
  if (group.places.length === 1)
    return `${group.places[0]!.operation}\n${formatDifference(group.places[0]!, reportDir)}`;
  const requests = group.places.reduce((sum, diff) => sum + diff.seenIn, 0);
  const first = group.places[0]!;
  return [
    `${group.pointer || '(status or whole body)'}: ${kindText(group.kind)} on ${group.places.length} operations (${requests} request(s))`,
    ...wrapList(
      group.places.map((diff) => `${shortLabel(diff.operation)} (${diff.seenIn})`),
      '  places:     ',
    ).map((line, index) => (index === 0 ? line : line.replace('  places:     ', '              '))),
    `  example:    ${first.operation}`,
    formatDifference(first, reportDir)
      .split('\n')
      .slice(1)
      .map((line) => line.replace(/^ {4}/, '  '))
      .join('\n'),
  ].join('\n');
}

function ms(value: number): string {
  return `${value.toFixed(value < 10 ? 2 : 1)} ms`;
}

/** One line of a latency verdict: both medians and p95s, the ratio and its interval. */
export function formatLatency(item: LatencyItem): string {
  const mark = item.regression ? 'REGRESSION' : item.improvement ? 'faster' : 'alike';
  return `${mark.padEnd(10)} ${item.operation}: p50 ${ms(item.candidate.p50)} vs ${ms(item.current.p50)}, p95 ${ms(item.candidate.p95)} vs ${ms(item.current.p95)}, p99 ${ms(item.candidate.p99)} vs ${ms(item.current.p99)}; ratio ${item.ratio.toFixed(2)} [${item.interval[0].toFixed(2)}, ${item.interval[1].toFixed(2)}] (${item.candidate.count} pairs)`;
}

/**
 * The terminal summary: each difference once, grouped by cause (a pointer and kind seen on several
 * operations is one entry with its places), with a request and its curl lines (a long one folded
 * into a file of `reportDir`).
 */
export function renderCompare(result: CompareResult, reportDir?: string): string {
  const lines: string[] = [
    `kgate compare: candidate ${result.candidate} against current ${result.current} (seed ${result.seed})`,
    `${result.requests.compared} requests compared, ${result.requests.repeated} repeated to the current deployment to learn its noise, ${result.requests.confirmed} sent to it again to confirm differences, ${result.requests.sent} sent in all`,
    '',
  ];
  const groups = groupDifferences(result.differences);
  if (result.verdict === 'error') lines.push('Behaviour: not judged: no request was compared.');
  else if (groups.length === 0) lines.push('Behaviour: alike on every operation.');
  else lines.push(`Behaviour: ${comparePhrase({ ...result, latency: [] })}`, '');
  for (const group of groups) lines.push(formatGroup(group, reportDir), '');
  if (result.noise.length > 0) {
    lines.push(
      '',
      `Learned to ignore (the current deployment varied there between identical calls; answers of ${result.ignored} request(s) set aside there):`,
    );
    for (const noisy of result.noise) {
      const how = noisy.numeric
        ? `numbers moving by up to ${(noisy.spread * 100).toPrecision(2)} % or ${noisy.absolute}`
        : 'any value';
      lines.push(`  ${noisy.operation} ${noisy.pointer || '(status or whole body)'}: ${how} (${noisy.seen} pair(s))`);
    }
  }
  if ((result.notes ?? []).length > 0) lines.push('', 'Notes:', ...(result.notes ?? []).map((note) => `  ${note}`));
  if (result.latency.length > 0) {
    lines.push(
      '',
      `Latency (candidate vs current, interleaved; a regression is significant and slower by more than ${result.threshold.percent} % and ${result.threshold.ms} ms at the median):`,
    );
    for (const item of result.latency) lines.push(`  ${formatLatency(item)}`);
  }
  if (result.again) lines.push('', `Again: ${result.again}`);
  return lines.join('\n');
}

function junitCase(name: string, classname: string, failure?: { message: string; text: string }): string {
  const open = `    <testcase classname="${xmlEscape(classname)}" name="${xmlEscape(name)}">`;
  if (!failure) return `${open}</testcase>`;
  return `${open}\n      <failure message="${xmlEscape(failure.message)}">${xmlEscape(failure.text)}</failure>\n    </testcase>`;
}

/** JUnit XML: per operation a `behaviour` case (failed by its differences) and, when measured, a `latency` case. */
export function renderCompareJunit(result: CompareResult): string {
  const suites = result.operations.map((entry) => {
    const diffs = result.differences.filter((diff) => diff.operation === entry.operation);
    const latency = result.latency.find((item) => item.operation === entry.operation);
    const cases = [
      junitCase(
        'behaviour',
        entry.operation,
        diffs.length > 0
          ? {
              message: `${diffs.length} difference(s) from the current deployment`,
              text: diffs.map((diff) => formatDifference(diff)).join('\n'),
            }
          : undefined,
      ),
    ];
    if (latency) {
      cases.push(
        junitCase(
          'latency',
          entry.operation,
          latency.regression
            ? { message: 'slower than the current deployment', text: formatLatency(latency) }
            : undefined,
        ),
      );
    }
    const failures = cases.filter((text) => text.includes('<failure')).length;
    return [
      `  <testsuite name="${xmlEscape(entry.operation)}" tests="${cases.length}" failures="${failures}" skipped="0" errors="0">`,
      ...cases,
      '  </testsuite>',
    ].join('\n');
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="kgate compare">\n${suites.join('\n')}\n</testsuites>\n`;
}

/** summary.md: the terminal summary in a code block under a one-line verdict. */
export function renderCompareMarkdown(result: CompareResult, reportDir?: string): string {
  return [
    `# kgate compare: ${result.verdict === 'error' ? 'NO VERDICT' : result.verdict.toUpperCase()}`,
    '',
    `${comparePhrase(result)}; candidate ${result.candidate}, current ${result.current}.`,
    '',
    '```',
    renderCompare(result, reportDir),
    '```',
    '',
  ].join('\n');
}

/** Writes summary.md, summary.json, junit.xml and report.html into `dir`; every file passes through redaction. */
export function writeCompareReports(result: CompareResult, dir: string): void {
  mkdirSync(dir, { recursive: true });
  const write = (name: string, text: string) => writeFileSync(join(dir, name), redactSecrets(text));
  write(COMPARE_FILES.markdown, renderCompareMarkdown(result, dir));
  write(COMPARE_FILES.json, `${JSON.stringify(result, null, 2)}\n`);
  write(COMPARE_FILES.junit, renderCompareJunit(result));
  write(COMPARE_FILES.html, renderCompareHtml(result, samplesOf(result)));
  const envelope = envelopeOfCompare(result);
  if (envelope) writeEnvelope(dir, envelope);
}
