import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { redactSecrets } from '../config/redact.ts';
import type { DriftFinding } from './findings.ts';
import type { HistoryReport } from './history.ts';
import { renderHistoryHtml, renderHistoryMarkdown } from './history-report.ts';
import type { LiveResult } from './live.ts';
import { FINDING_KINDS } from './walk.ts';

/** A run id that sorts by time: `20261122T041500Z-3f9a`. */
export function newRunId(now = new Date()): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `${stamp}-${randomBytes(2).toString('hex')}`;
}

/**
 * Writes `drift.json` and `drift.md` of a live run into `dir` (created if needed), and with a
 * history (--history) its section in both and `history.html`; returns the paths.
 */
export function writeLiveReport(
  result: LiveResult,
  dir: string,
  history?: HistoryReport,
): { json: string; markdown: string; html?: string } {
  mkdirSync(dir, { recursive: true });
  const json = join(dir, 'drift.json');
  const markdown = join(dir, 'drift.md');
  writeFileSync(json, `${redactSecrets(JSON.stringify(history ? { ...result, history } : result, null, 2))}\n`);
  const historyPart = history ? `\n${renderHistoryMarkdown(history)}` : '';
  writeFileSync(markdown, redactSecrets(`${renderMarkdown(result)}${historyPart}`));
  if (!history) return { json, markdown };
  const html = join(dir, 'history.html');
  writeFileSync(html, redactSecrets(renderHistoryHtml(history)));
  return { json, markdown, html };
}

/** One line per finding, as the CLI prints it. */
export function findingLine(finding: DriftFinding): string {
  const state = finding.known ? 'known' : 'NEW  ';
  const times = finding.occurrences > 1 ? ` (x${finding.occurrences})` : '';
  return `${state} ${finding.kind} ${finding.operation} ${finding.status} ${finding.path}: ${finding.message}${times} [${finding.fingerprint}]`;
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The Markdown report of a live run. */
export function renderMarkdown(result: LiveResult): string {
  const { summary } = result;
  const lines = [
    '# kgate drift live',
    '',
    `Target: ${result.baseUrl}  `,
    ...(result.network ? [`Network: ${result.network}  `] : []),
    `Started: ${result.startedAt}, ${summary.requests} requests in ${(result.durationMs / 1000).toFixed(1)} s  `,
    `Findings: ${summary.findings} (${summary.new} new, ${summary.known} known from the baseline)` +
      (summary.transportErrors > 0 ? `, ${summary.transportErrors} requests without an answer` : ''),
    '',
    'Drift is not a conformance failure: it lists where the target differs from the spec.',
    '',
  ];
  if (result.findings.length > 0) {
    lines.push(
      '## Findings',
      '',
      '| | kind | operation | status | path (first seen) | what | sample | seen | fingerprint |',
      '|---|---|---|---|---|---|---|---|---|',
    );
    for (const finding of result.findings) {
      lines.push(
        `| ${finding.known ? 'known' : '**new**'} | ${finding.kind} | ${cell(finding.operation)} | ${finding.status} | \`${cell(finding.path)}\` | ${cell(finding.message)} | ${finding.sample ? `\`${cell(finding.sample)}\`` : ''} | ${finding.occurrences}x in ${cell(finding.seenIn)} | ${finding.fingerprint} |`,
      );
    }
    lines.push('');
  } else {
    lines.push('No drift: every response matched the spec.', '');
  }
  if (summary.resolved.length > 0) {
    lines.push('## Baseline findings no longer seen', '', ...summary.resolved.map((id) => `- ${id}`), '');
  }
  const used = [...new Set(result.findings.map((finding) => finding.kind))];
  if (used.length > 0) {
    lines.push('## Kinds', '', ...used.map((kind) => `- **${kind}**: ${FINDING_KINDS[kind]}`), '');
  }
  lines.push('## Requests', '', '| case | status | media type | issues | reproduce |', '|---|---|---|---|---|');
  for (const item of result.cases) {
    lines.push(
      `| ${cell(item.name)} | ${item.status ?? cell(item.error ?? '')} | ${item.mediaType ?? ''} | ${item.issues} | \`${cell(item.curl)}\` |`,
    );
  }
  return `${lines.join('\n')}\n`;
}
