// A whole page: every page kgate writes (conformance, fuzz, drift live, drift history, compare,
// load) is a ReportPage rendered here, so each has the same shape: the verdict banner with its
// facts and count chips, what changed since the previous run, the matrix, titled sections (findings
// as cards, lists, tables and charts the command built from the components), requests per
// operation, and what each check verifies. One self-contained document: inline style and a few
// lines of script (copy buttons; nothing needs it to be read), nothing fetched, print styles.
import {
  banner,
  type Chip,
  type Fact,
  type Finding,
  findingCard,
  type Item,
  items,
  type Matrix,
  matrix,
  section,
  type Tone,
  table,
  type Verdict,
} from './components.ts';
import { formatCount, formatDate, formatDuration, formatMs, type Html, html, shortLabel, slug, text } from './html.ts';
import { SCRIPT, STYLE } from './style.ts';

/** The file name of the page in a run folder. */
export const REPORT_HTML = 'report.html';

/** A list entry of a section that may explain matrix cells (a skip and its reason). */
export interface PageItem extends Item {
  /** The matrix cell it explains, if any (a skipped cell links here). */
  operation?: string;
  check?: string;
  /** Further cells it explains (one reason shared by several skipped cells). */
  cells?: { operation: string; check: string }[];
}

/** A titled part of the page below the matrix. */
export interface PageSection {
  id: string;
  title: string;
  /** `fail` marks the section's heading as failing (the first thing a reader looks for). */
  tone?: Tone;
  intro?: string;
  findings?: Finding[];
  items?: PageItem[];
  /** Components the command built (tables, charts), shown after the findings and items. */
  html?: string;
  /** The number beside the title; default the findings and items shown. None for a section of components only. */
  count?: number;
  /** Extra attributes of the section, already built (`data-operation="..."`). */
  attributes?: string;
}

/** What changed since the previous run of the same kind in the same reports folder. */
export interface PageChanges {
  previous: { label: string; verdict: 'pass' | 'fail'; href?: string; note?: string };
  /** Failures this run has that the previous one did not. */
  added: PageItem[];
  /** Failures of the previous run this one does not have. */
  fixed: PageItem[];
  /** Failures both runs have. */
  still: number;
}

/** The model of a page. */
export interface ReportPage {
  /** `kgate conformance`, `kgate fuzz`, `kgate drift live`, `kgate compare`, `kgate load smoke`. */
  tool: string;
  /** The command's verdict (its exit code): pass or fail; `info` for a page that judges nothing (a history). */
  verdict: Verdict;
  /** The banner's word, when not PASS, FAIL or INFO. */
  word?: string;
  /** Why, in a few words: `2 failed cells`, `no findings`. */
  headline: string;
  /** The target, its key (and any credential) masked. */
  target?: string;
  /** ISO 8601. */
  startedAt?: string;
  durationMs?: number;
  requests?: number;
  /** Further facts for the banner (seed, workers, pace, baseline file). */
  facts?: Fact[];
  /** The count chips under the verdict. */
  counts: Chip[];
  changes?: PageChanges;
  matrix?: Matrix;
  sections: PageSection[];
  /** Per operation: requests sent and their latencies as the run saw them. */
  operations?: { operation: string; requests: number; p50Ms?: number; p95Ms?: number }[];
  /** The checks (or kinds) of the matrix and what each verifies: where a passed cell links to. */
  checks?: { id: string; severity?: string; verifies: string }[];
  /** The heading of that list (default: what each check verifies). */
  checksTitle?: string;
  /** The other files of the run folder. */
  files?: string[];
}

const cellKey = (operation: string, check: string) => `${operation}\u0000${check}`;

/** Renders the page: one self-contained HTML document. */
export function renderPage(page: ReportPage): string {
  // Anchors: every finding and every section item gets one; a matrix cell links to the first
  // finding of its cell (failures first), or the item that explains its skip. A finding with
  // places stands for every cell it touched.
  const anchors = new Map<string, string>();
  const rank = { fail: 0, known: 1, warn: 2, info: 3 } as const;
  const findings = page.sections.flatMap((part) => part.findings ?? []);
  const anchorOf = new Map<Finding | PageItem, string>();
  for (const [index, finding] of findings.entries()) anchorOf.set(finding, `f${index + 1}`);
  for (const finding of [...findings].sort((a, b) => rank[a.level] - rank[b.level])) {
    const operations =
      finding.places && finding.places.length > 0 ? finding.places.map((place) => place.operation) : [];
    for (const operation of [finding.operation, ...operations]) {
      const key = cellKey(operation, finding.check);
      if (!anchors.has(key)) anchors.set(key, anchorOf.get(finding)!);
    }
  }
  let itemIndex = 0;
  for (const part of page.sections) {
    for (const item of part.items ?? []) {
      const id = item.id ?? `i${++itemIndex}`;
      anchorOf.set(item, id);
      const cells = [...(item.operation && item.check ? [{ operation: item.operation, check: item.check }] : [])];
      for (const cell of [...cells, ...(item.cells ?? [])]) {
        if (!anchors.has(cellKey(cell.operation, cell.check))) anchors.set(cellKey(cell.operation, cell.check), id);
      }
    }
  }
  const described = new Set((page.checks ?? []).map((check) => check.id));

  const word = page.word ?? (page.verdict === 'pass' ? 'PASS' : page.verdict === 'fail' ? 'FAIL' : 'INFO');
  const parts: string[] = [
    banner({
      tool: page.tool,
      verdict: page.verdict,
      word,
      headline: page.headline,
      facts: [
        ...(page.target ? [{ label: 'target', value: page.target }] : []),
        ...(page.startedAt ? [{ label: 'started', value: formatDate(page.startedAt) }] : []),
        ...(page.durationMs !== undefined ? [{ label: 'duration', value: formatDuration(page.durationMs) }] : []),
        ...(page.requests !== undefined ? [{ label: 'requests', value: formatCount(page.requests) }] : []),
        ...(page.facts ?? []),
      ],
      counts: page.counts,
    }),
  ];
  if (page.changes) parts.push(renderChanges(page.changes, anchors));
  if (page.matrix)
    parts.push(
      matrix(page.matrix, {
        anchorOf: (operation, row) => anchors.get(cellKey(operation, row)),
        described,
        shortLabel,
      }),
    );

  for (const part of page.sections) {
    const shown = (part.findings?.length ?? 0) + (part.items?.length ?? 0);
    if (shown === 0 && !part.html) continue;
    const body = [
      ...(part.findings ?? []).map((finding) => findingCard(finding, anchorOf.get(finding)!)),
      part.items && part.items.length > 0 ? items(part.items.map((item) => ({ ...item, id: anchorOf.get(item) }))) : '',
      part.html ?? '',
    ]
      .filter(Boolean)
      .join('\n');
    parts.push(
      section({
        id: part.id,
        title: part.title,
        tone: part.tone,
        count: part.count ?? (shown > 0 ? shown : undefined),
        intro: part.intro,
        body,
        attributes: part.attributes,
      }),
    );
  }

  if (page.operations && page.operations.length > 0) {
    const failedCells = (operation: string) =>
      Object.values(page.matrix?.cells[operation] ?? {}).filter((cell) => cell === 'fail').length;
    parts.push(
      section({
        id: 'operations',
        title: 'Requests per operation',
        intro:
          'Every request the run sent, discovery, probes and retries included; latency from sending to the complete answer (or to the failure), as the run saw it.',
        body: table({
          id: 'operations-table',
          columns: [
            'operation',
            { title: 'requests', numeric: true },
            { title: 'p50', numeric: true },
            { title: 'p95', numeric: true },
            ...(page.matrix ? [{ title: 'failed cells', numeric: true }] : []),
          ],
          rows: page.operations.map((row) => {
            const failed = failedCells(row.operation);
            const cells: (string | Html)[] = [
              row.operation,
              formatCount(row.requests),
              formatMs(row.p50Ms),
              formatMs(row.p95Ms),
              ...(page.matrix ? [html(failed > 0 ? `<span class="fail-text">✗ ${failed}</span>` : '0')] : []),
            ];
            return { cells, ...(failed > 0 ? { tone: 'fail' as const } : {}) };
          }),
        }),
      }),
    );
  }

  if (page.checks && page.checks.length > 0) {
    parts.push(
      section({
        id: 'checks',
        title: page.checksTitle ?? 'What each check verifies',
        body: [
          '<dl class="checks">',
          ...page.checks.map(
            (check) =>
              `<div id="check-${text(slug(check.id))}"><dt><code>${text(check.id)}</code>${check.severity === 'warn' ? ' <span class="tag">warn</span>' : ''}</dt><dd>${text(check.verifies)}</dd></div>`,
          ),
          '</dl>',
        ].join('\n'),
      }),
    );
  }

  parts.push(
    `<footer>Written by kgate.${page.files && page.files.length > 0 ? ` The same run in this folder: ${page.files.map((file) => `<code>${text(file)}</code>`).join(', ')}.` : ''}</footer>`,
  );

  return document(`${page.tool}: ${word}${page.target ? ` · ${page.target}` : ''}`, page.verdict, parts.join('\n'));
}

/** A whole HTML document around a page's parts: the stylesheet, the copy script, nothing fetched. */
export function document(title: string, verdict: Verdict, body: string): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${text(title)}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    `<body class="${verdict}">`,
    '<main>',
    body,
    '</main>',
    `<script>${SCRIPT}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

function renderChanges(changes: PageChanges, anchors: Map<string, string>): string {
  const { previous } = changes;
  const link = (item: PageItem) => {
    const anchor = item.operation && item.check ? anchors.get(cellKey(item.operation, item.check)) : undefined;
    return anchor ? `<a href="#${anchor}">${text(item.text)}</a>` : text(item.text);
  };
  const prev = previous.href ? `<a href="${text(previous.href)}">${text(previous.label)}</a>` : text(previous.label);
  const same = changes.added.length === 0 && changes.fixed.length === 0;
  return section({
    id: 'changes',
    title: 'Since the previous run',
    tone: 'changes',
    body: [
      `<p class="intro">Compared with ${prev} (${previous.verdict === 'pass' ? 'PASS' : 'FAIL'})${previous.note ? `; ${text(previous.note)}` : ''}: ${
        same
          ? `nothing new, nothing fixed${changes.still > 0 ? ` (${changes.still} still there)` : ''}.`
          : `${changes.added.length} new, ${changes.fixed.length} fixed, ${changes.still} still there.`
      }</p>`,
      changes.added.length > 0
        ? `<h3 class="fail-text">✗ New since then</h3><ul class="items">${changes.added.map((item) => `<li>${link(item)}</li>`).join('')}</ul>`
        : '',
      changes.fixed.length > 0
        ? `<h3 class="pass-text">✓ Fixed since then</h3><ul class="items">${changes.fixed.map((item) => `<li>${text(item.text)}</li>`).join('')}</ul>`
        : '',
    ]
      .filter(Boolean)
      .join('\n'),
  });
}
