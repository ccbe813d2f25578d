// kgate's own HTML report: one self-contained page (inline CSS and a few lines of script, nothing
// fetched) that says at a glance what the run's verdict is and why. It renders a ReportPage, a
// model every kind of run fills in the same way (conformance, fuzz, drift live), so the page has
// one shape: the verdict banner, what changed since the previous run, the operation x check
// matrix, every finding as the terminal shows it, skips, and the requests per operation.
import { redactSecrets } from '../config/redact.ts';
import { shortLabel } from './summary.ts';

/** What one cell of the page's matrix says. */
export type PageCell = 'pass' | 'fail' | 'known' | 'warn' | 'skip' | 'n/a';

/** One finding, as the terminal prints it: a title line, labelled fields, the curl line. */
export interface PageFinding {
  /** `fail` fails the run; `known` is accepted by a baseline; `warn` fails only under --strict. */
  level: 'fail' | 'known' | 'warn';
  /** The check id (the matrix row it belongs to). */
  check: string;
  /** The operation label (the matrix column it belongs to). */
  operation: string;
  title: string;
  /** How often it was seen, in words (`seen by 3 tests`). */
  seen?: string;
  /** `received`, `documented`, `at`, `body`, `seed`, `baseline`... in the order shown. */
  fields: { label: string; value: string }[];
  /** A command that reproduces it, the key masked. */
  curl?: string;
}

/** A list entry of a section: a skip and its reason, a fixed baseline entry, a note. */
export interface PageItem {
  text: string;
  /** Shown as code after the text. */
  code?: string;
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
  tone?: 'fail' | 'known' | 'warn' | 'skip' | 'info';
  intro?: string;
  findings?: PageFinding[];
  items?: PageItem[];
  /** The number beside the title; default the findings and items shown (skipped cells are grouped by reason). */
  count?: number;
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

/** The operation x check matrix. */
export interface PageMatrix {
  title: string;
  /** Operation labels: the columns. */
  operations: string[];
  /** Check ids (or finding kinds): the rows; `note` follows the id (`warn`). */
  rows: { id: string; note?: string }[];
  /** operation -> row id -> cell; absent: does not apply. */
  cells: Record<string, Record<string, PageCell>>;
  /** One sentence under the matrix: what the states mean here. */
  legend: string;
}

/** The model of a report page; see the adapters in report-page.ts. */
export interface ReportPage {
  /** `kgate conformance`, `kgate fuzz`, `kgate drift live`. */
  tool: string;
  verdict: 'pass' | 'fail';
  /** Why, in a few words: `2 failed cells`, `no findings`. */
  headline: string;
  /** The target, its key (and any credential) masked. */
  target?: string;
  /** ISO 8601. */
  startedAt?: string;
  durationMs: number;
  requests?: number;
  /** Further facts for the banner (seed, workers, pace, baseline file). */
  facts?: { label: string; value: string }[];
  /** The count chips under the verdict. */
  counts: { label: string; value: number; cell: PageCell }[];
  changes?: PageChanges;
  matrix?: PageMatrix;
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

/** The file name of the page in a run folder. */
export const REPORT_HTML = 'report.html';

const ICON: Record<PageCell, string> = { pass: '✓', fail: '✗', known: '◐', warn: '⚠', skip: '↷', 'n/a': '·' };
const WORD: Record<PageCell, string> = {
  pass: 'pass',
  fail: 'FAIL',
  known: 'known',
  warn: 'warn',
  skip: 'skip',
  'n/a': '',
};

/** Escapes text for HTML element content and double-quoted attribute values. */
export function htmlEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/**
 * Text as the page shows it: secrets redacted first (a masked curl line must still read as one
 * once escaped), then escaped.
 */
function safeText(text: string): string {
  return htmlEscape(redactSecrets(text));
}

/** Hides credentials a URL may carry: a password, and query values named like a key, token or signature. */
export function maskUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  if (parsed.password) parsed.password = '***';
  for (const name of [...parsed.searchParams.keys()]) {
    if (/key|token|secret|sig|password|auth/i.test(name)) parsed.searchParams.set(name, '***');
  }
  return parsed.href.replace(/%2A%2A%2A/g, '***').replace(/\/$/, url.endsWith('/') ? '/' : '');
}

/** `1234` -> `1.2 s`; `263000` -> `4 min 23 s`. */
export function formatDuration(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

/** `2026-11-24T05:40:12.345Z` -> `2026-11-24 05:40:12 UTC`. */
function formatDate(iso: string): string {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/.test(iso) ? `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC` : iso;
}

function formatMs(ms: number | undefined): string {
  if (ms === undefined) return '–';
  return ms < 10 ? `${ms.toFixed(1)} ms` : `${Math.round(ms).toLocaleString('en-US')} ms`;
}

const cellKey = (operation: string, check: string) => `${operation}\u0000${check}`;
const slug = (text: string) => text.replace(/[^A-Za-z0-9_-]+/g, '-');

/** Renders the page: one self-contained HTML document. */
export function renderReportHtml(page: ReportPage): string {
  const esc = safeText;
  // Anchors: every finding and every section item gets one; a matrix cell links to the first
  // finding of its cell (failures first), or the item that explains its skip.
  const anchors = new Map<string, string>();
  const rank = { fail: 0, known: 1, warn: 2 } as const;
  const findings = page.sections.flatMap((section) => section.findings ?? []);
  const anchorOf = new Map<PageFinding | PageItem, string>();
  for (const [index, finding] of findings.entries()) anchorOf.set(finding, `f${index + 1}`);
  for (const finding of [...findings].sort((a, b) => rank[a.level] - rank[b.level])) {
    const key = cellKey(finding.operation, finding.check);
    if (!anchors.has(key)) anchors.set(key, anchorOf.get(finding)!);
  }
  let itemIndex = 0;
  for (const section of page.sections) {
    for (const item of section.items ?? []) {
      const id = `i${++itemIndex}`;
      anchorOf.set(item, id);
      const cells = [...(item.operation && item.check ? [{ operation: item.operation, check: item.check }] : [])];
      for (const cell of [...cells, ...(item.cells ?? [])]) {
        if (!anchors.has(cellKey(cell.operation, cell.check))) anchors.set(cellKey(cell.operation, cell.check), id);
      }
    }
  }
  const checkIds = new Set((page.checks ?? []).map((check) => check.id));

  const verdict = page.verdict === 'pass' ? 'PASS' : 'FAIL';
  const facts: { label: string; value: string }[] = [
    ...(page.target ? [{ label: 'target', value: page.target }] : []),
    ...(page.startedAt ? [{ label: 'started', value: formatDate(page.startedAt) }] : []),
    { label: 'duration', value: formatDuration(page.durationMs) },
    ...(page.requests !== undefined ? [{ label: 'requests', value: page.requests.toLocaleString('en-US') }] : []),
    ...(page.facts ?? []),
  ];
  const parts: string[] = [];
  parts.push(
    `<header class="banner ${page.verdict}" id="verdict">`,
    `<div class="verdict"><span class="icon" aria-hidden="true">${page.verdict === 'pass' ? '✓' : '✗'}</span><span class="word">${verdict}</span></div>`,
    '<div class="about">',
    `<h1>${esc(page.tool)}: ${verdict}<span class="headline"> (${esc(page.headline)})</span></h1>`,
    `<dl class="facts">${facts.map((fact) => `<div><dt>${esc(fact.label)}</dt><dd>${esc(fact.value)}</dd></div>`).join('')}</dl>`,
    `<ul class="counts">${page.counts
      .map(
        (count) =>
          `<li class="chip ${count.value > 0 ? cellClass(count.cell) : 'zero'}" data-count="${esc(count.label)}"><b>${count.value}</b> ${esc(count.label)}</li>`,
      )
      .join('')}</ul>`,
    '</div>',
    '</header>',
  );

  if (page.changes) parts.push(renderChanges(page.changes, anchors));

  if (page.matrix) parts.push(renderMatrix(page.matrix, anchors, checkIds));

  for (const section of page.sections) {
    const shown = (section.findings?.length ?? 0) + (section.items?.length ?? 0);
    if (shown === 0) continue;
    const count = section.count ?? shown;
    parts.push(
      `<section id="${esc(section.id)}" class="part ${section.tone ?? 'info'}">`,
      `<h2>${esc(section.title)} <span class="n">${count}</span></h2>`,
      section.intro ? `<p class="intro">${esc(section.intro)}</p>` : '',
    );
    for (const finding of section.findings ?? []) parts.push(renderFinding(finding, anchorOf.get(finding)!));
    if (section.items && section.items.length > 0) {
      parts.push(
        `<ul class="items">${section.items
          .map(
            (item) =>
              `<li id="${anchorOf.get(item)}">${esc(item.text)}${item.code ? ` <code>${esc(item.code)}</code>` : ''}</li>`,
          )
          .join('')}</ul>`,
      );
    }
    parts.push('</section>');
  }

  if (page.operations && page.operations.length > 0) {
    const failedCells = (operation: string) =>
      Object.values(page.matrix?.cells[operation] ?? {}).filter((cell) => cell === 'fail').length;
    parts.push(
      '<section id="operations" class="part info">',
      '<h2>Requests per operation</h2>',
      '<p class="intro">Every request the run sent, discovery, probes and retries included; latency from sending to the complete answer (or to the failure), as the gate saw it.</p>',
      '<table class="ops"><thead><tr><th scope="col">operation</th><th scope="col">requests</th><th scope="col">p50</th><th scope="col">p95</th>',
      page.matrix ? '<th scope="col">failed cells</th>' : '',
      '</tr></thead><tbody>',
      ...page.operations.map((row) => {
        const failed = failedCells(row.operation);
        return `<tr><th scope="row">${esc(row.operation)}</th><td>${row.requests.toLocaleString('en-US')}</td><td>${formatMs(row.p50Ms)}</td><td>${formatMs(row.p95Ms)}</td>${page.matrix ? `<td class="${failed > 0 ? 'fail-text' : ''}">${failed > 0 ? `✗ ${failed}` : '0'}</td>` : ''}</tr>`;
      }),
      '</tbody></table>',
      '</section>',
    );
  }

  if (page.checks && page.checks.length > 0) {
    parts.push(
      '<section id="checks" class="part info">',
      `<h2>${esc(page.checksTitle ?? 'What each check verifies')}</h2>`,
      '<dl class="checks">',
      ...page.checks.map(
        (check) =>
          `<div id="check-${esc(slug(check.id))}"><dt><code>${esc(check.id)}</code>${check.severity === 'warn' ? ' <span class="tag">warn</span>' : ''}</dt><dd>${esc(check.verifies)}</dd></div>`,
      ),
      '</dl>',
      '</section>',
    );
  }

  parts.push(
    `<footer>Written by kgate.${page.files && page.files.length > 0 ? ` The same run in this folder: ${page.files.map((file) => `<code>${esc(file)}</code>`).join(', ')}.` : ''}</footer>`,
  );

  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${esc(page.tool)}: ${verdict}${page.target ? ` · ${esc(page.target)}` : ''}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    `<body class="${page.verdict}">`,
    '<main>',
    ...parts.filter(Boolean),
    '</main>',
    `<script>${SCRIPT}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

function cellClass(cell: PageCell): string {
  return cell === 'n/a' ? 'na' : cell;
}

function renderChanges(changes: PageChanges, anchors: Map<string, string>): string {
  const esc = safeText;
  const { previous } = changes;
  const link = (item: PageItem) => {
    const anchor = item.operation && item.check ? anchors.get(cellKey(item.operation, item.check)) : undefined;
    return anchor ? `<a href="#${anchor}">${esc(item.text)}</a>` : esc(item.text);
  };
  const prev = previous.href ? `<a href="${esc(previous.href)}">${esc(previous.label)}</a>` : esc(previous.label);
  const same = changes.added.length === 0 && changes.fixed.length === 0;
  return [
    '<section id="changes" class="part changes">',
    '<h2>Since the previous run</h2>',
    `<p class="intro">Compared with ${prev} (${previous.verdict === 'pass' ? 'PASS' : 'FAIL'})${previous.note ? `; ${esc(previous.note)}` : ''}: ${
      same
        ? `nothing new, nothing fixed${changes.still > 0 ? ` (${changes.still} still there)` : ''}.`
        : `${changes.added.length} new, ${changes.fixed.length} fixed, ${changes.still} still there.`
    }</p>`,
    changes.added.length > 0
      ? `<h3 class="fail-text">✗ New since then</h3><ul class="items">${changes.added.map((item) => `<li>${link(item)}</li>`).join('')}</ul>`
      : '',
    changes.fixed.length > 0
      ? `<h3 class="pass-text">✓ Fixed since then</h3><ul class="items">${changes.fixed.map((item) => `<li>${esc(item.text)}</li>`).join('')}</ul>`
      : '',
    '</section>',
  ].join('\n');
}

function renderMatrix(matrix: PageMatrix, anchors: Map<string, string>, checkIds: Set<string>): string {
  const esc = safeText;
  const head = matrix.operations
    .map((operation) => {
      const [name, method] = shortLabel(operation).split(' ');
      // Long names may break where their words meet (calc|histogram, answer|search).
      const breakable = esc(name ?? operation).replace(/^(calc|answer|related|hot|url)(?=[a-z]{4})/, '$1<wbr>');
      return `<th scope="col" title="${esc(operation)}"><span>${breakable}</span><small>${esc(method ?? '')}</small></th>`;
    })
    .join('');
  const rows = matrix.rows.map((row) => {
    const cells = matrix.operations.map((operation) => matrix.cells[operation]?.[row.id] ?? 'n/a');
    const clean = cells.every((cell) => cell === 'pass' || cell === 'n/a');
    const tds = matrix.operations
      .map((operation, index) => {
        const cell = cells[index]!;
        if (cell === 'n/a') return '<td class="na" title="does not apply">·</td>';
        const label = `${row.id} on ${operation}: ${WORD[cell] || cell}`;
        const anchor =
          anchors.get(cellKey(operation, row.id)) ?? (checkIds.has(row.id) ? `check-${slug(row.id)}` : undefined);
        const inner = `<span aria-hidden="true">${ICON[cell]}</span> ${WORD[cell]}`;
        // The headers name the cell for a screen reader; a title is worth its bytes only where there is something to see.
        const title = cell === 'pass' ? '' : ` title="${esc(label)}"`;
        return `<td class="${cellClass(cell)}">${anchor ? `<a href="#${anchor}"${title}>${inner}</a>` : `<span${title}>${inner}</span>`}</td>`;
      })
      .join('');
    const name = checkIds.has(row.id) ? `<a href="#check-${esc(slug(row.id))}">${esc(row.id)}</a>` : esc(row.id);
    return `<tr class="${clean ? 'clean' : 'dirty'}"><th scope="row"><code>${name}</code>${row.note ? ` <span class="tag">${esc(row.note)}</span>` : ''}</th>${tds}</tr>`;
  });
  return [
    '<section id="matrix" class="part matrix">',
    `<h2>${esc(matrix.title)}</h2>`,
    '<p class="tools"><label><input type="checkbox" id="only-findings"> only rows with a finding or a skip</label></p>',
    '<div class="scroll">',
    `<table class="grid"><thead><tr><th scope="col" class="corner">check \\ operation</th>${head}</tr></thead>`,
    `<tbody>${rows.join('\n')}</tbody></table>`,
    '</div>',
    `<p class="legend"><span class="key pass">✓ pass</span> <span class="key fail">✗ FAIL</span> <span class="key known">◐ known</span> <span class="key warn">⚠ warn</span> <span class="key skip">↷ skip</span> <span class="key na">· does not apply</span> ${esc(matrix.legend)}</p>`,
    '</section>',
  ].join('\n');
}

function renderFinding(finding: PageFinding, id: string): string {
  const esc = safeText;
  const mark = finding.level === 'fail' ? '✗ FAIL' : finding.level === 'known' ? '◐ known' : '⚠ warn';
  return [
    `<article class="finding ${finding.level}" id="${id}">`,
    `<h3><span class="badge ${finding.level}">${mark}</span> <code>[${esc(finding.check)}]</code> ${esc(finding.operation)}: ${esc(finding.title)}${finding.seen ? ` <span class="seen">(${esc(finding.seen)})</span>` : ''}</h3>`,
    `<dl>${finding.fields
      .map(
        (field) =>
          `<div><dt>${esc(field.label)}</dt><dd>${field.label === 'body' || field.label === 'at' ? `<code>${esc(field.value)}</code>` : esc(field.value)}</dd></div>`,
      )
      .join('')}</dl>`,
    finding.curl
      ? `<div class="curl"><span class="label">reproduce</span><pre id="${id}-curl">${esc(finding.curl)}</pre><button type="button" class="copy" data-copy="${id}-curl">Copy</button></div>`
      : '',
    '</article>',
  ].join('\n');
}

const STYLE = `
:root{--ink:#1d232a;--muted:#5b6470;--line:#d6dbe1;--bg:#f6f7f9;--pass:#0b6b50;--pass-bg:#dcf1e8;--fail:#b3400b;--fail-bg:#b3400b;--known:#4a3a80;--known-bg:#e8e3f5;--warn:#6b4a00;--warn-bg:#fbeec2;--skip:#4f5660;--skip-bg:#eceef1}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--ink);background:var(--bg)}
main{max-width:1320px;margin:0 auto;padding:16px 20px 40px}
code,pre{font:12.5px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
a{color:#0b4f8a}
.banner{display:flex;gap:20px;align-items:stretch;border-radius:10px;padding:0;overflow:hidden;background:#fff;border:1px solid var(--line);margin-bottom:16px}
.banner .verdict{display:flex;flex-direction:column;justify-content:center;align-items:center;min-width:150px;padding:14px 18px;color:#fff}
.banner.pass .verdict{background:var(--pass)}
.banner.fail .verdict{background:var(--fail)}
.banner .icon{font-size:40px;line-height:1}
.banner .word{font-size:30px;font-weight:800;letter-spacing:.06em}
.banner .about{padding:12px 16px 12px 0;flex:1;min-width:0}
h1{font-size:20px;margin:0 0 6px}
.headline{font-weight:400;color:var(--muted)}
.facts{display:flex;flex-wrap:wrap;gap:4px 22px;margin:0 0 10px}
.facts div{display:flex;gap:6px;min-width:0}
.facts dt{color:var(--muted)}
.facts dd{margin:0;font-weight:600;overflow-wrap:anywhere}
.counts{display:flex;flex-wrap:wrap;gap:8px;list-style:none;margin:0;padding:0}
.chip{border-radius:999px;padding:3px 12px;border:1px solid var(--line);background:#fff}
.chip.pass{background:var(--pass-bg);color:var(--pass);border-color:#9fd3bf}
.chip.fail{background:var(--fail-bg);color:#fff;border-color:var(--fail)}
.chip.known{background:var(--known-bg);color:var(--known)}
.chip.warn{background:var(--warn-bg);color:var(--warn);border-color:#e6c86e}
.chip.skip{background:var(--skip-bg);color:var(--skip)}
.chip.zero{color:var(--muted)}
.part{background:#fff;border:1px solid var(--line);border-radius:10px;padding:12px 16px;margin:0 0 16px}
.part.fail{border-left:6px solid var(--fail)}
.part.warn{border-left:6px solid #c99a14}
.part.known{border-left:6px solid var(--known)}
.part.changes{border-left:6px solid #0b4f8a}
h2{font-size:17px;margin:2px 0 8px}
h2 .n{font-size:13px;font-weight:600;color:var(--muted);background:var(--bg);border-radius:999px;padding:1px 8px;vertical-align:2px}
h3{font-size:14px;margin:10px 0 4px}
.intro{color:var(--muted);margin:0 0 8px}
.fail-text{color:var(--fail);font-weight:700}
.pass-text{color:var(--pass);font-weight:700}
.tools{margin:0 0 6px;color:var(--muted)}
.scroll{overflow-x:auto}
.grid{border-collapse:separate;border-spacing:2px;font-size:12px}
.grid th{font-weight:600;text-align:left;white-space:nowrap}
.grid thead th{text-align:center;vertical-align:bottom;padding:2px 3px;position:sticky;top:0;background:#fff;font-size:11.5px;max-width:80px;white-space:normal;line-height:1.2}
.grid thead th span,.grid thead th small{display:block}
.grid thead th small{color:var(--muted);font-weight:400}
.grid thead th.corner{text-align:left;color:var(--muted);font-weight:400}
.grid tbody th{padding:2px 8px 2px 0}
.grid tbody th a{color:inherit;text-decoration:none}
.grid td{text-align:center;border-radius:4px;min-width:54px;padding:0;white-space:nowrap}
.grid td>a,.grid td>span{display:block;padding:3px 4px;color:inherit;text-decoration:none}
.grid td a:hover,.grid td a:focus{outline:2px solid #0b4f8a;outline-offset:-2px;border-radius:4px}
td.pass{background:var(--pass-bg);color:var(--pass)}
td.fail{background:var(--fail-bg);color:#fff;font-weight:800}
td.known{background:var(--known-bg);color:var(--known);font-weight:600}
td.warn{background:var(--warn-bg);color:var(--warn);font-weight:600}
td.skip{background:var(--skip-bg);color:var(--skip);font-style:italic}
td.na{color:#a3aab3}
.only tr.clean{display:none}
.legend{color:var(--muted);font-size:12.5px;margin:8px 0 0}
.key{display:inline-block;border-radius:4px;padding:0 6px;margin-right:2px}
.key.pass{background:var(--pass-bg);color:var(--pass)}
.key.fail{background:var(--fail-bg);color:#fff;font-weight:700}
.key.known{background:var(--known-bg);color:var(--known)}
.key.warn{background:var(--warn-bg);color:var(--warn)}
.key.skip{background:var(--skip-bg);color:var(--skip)}
.tag{font-size:11px;border:1px solid #c99a14;color:var(--warn);border-radius:4px;padding:0 4px}
.finding{border:1px solid var(--line);border-radius:8px;padding:8px 12px;margin:10px 0;scroll-margin-top:12px}
.finding:target{outline:3px solid #0b4f8a}
.finding h3{margin:0 0 6px;font-size:14px;overflow-wrap:anywhere}
.badge{display:inline-block;border-radius:4px;padding:0 6px;font-size:12px;font-weight:800}
.badge.fail{background:var(--fail-bg);color:#fff}
.badge.known{background:var(--known-bg);color:var(--known)}
.badge.warn{background:var(--warn-bg);color:var(--warn)}
.seen{color:var(--muted);font-weight:400}
.finding dl{margin:0;display:grid;grid-template-columns:max-content 1fr;gap:2px 12px}
.finding dl div{display:contents}
.finding dt{color:var(--muted)}
.finding dd{margin:0;overflow-wrap:anywhere;white-space:pre-wrap}
.curl{display:flex;gap:8px;align-items:flex-start;margin-top:6px}
.curl .label{color:var(--muted);padding-top:5px}
.curl pre{flex:1;margin:0;background:#1d232a;color:#f1f3f5;border-radius:6px;padding:6px 10px;white-space:pre-wrap;overflow-wrap:anywhere}
.copy{font:inherit;font-size:12px;border:1px solid var(--line);background:#fff;border-radius:6px;padding:4px 10px;cursor:pointer}
.copy:hover{background:var(--bg)}
.items{margin:4px 0;padding-left:20px}
.items li{margin:2px 0;overflow-wrap:anywhere}
.items li:target{outline:3px solid #0b4f8a}
.ops{border-collapse:collapse;font-size:13px}
.ops th,.ops td{border-bottom:1px solid var(--line);padding:4px 12px 4px 0;text-align:right}
.ops th:first-child{text-align:left;font-weight:500}
.checks{display:grid;grid-template-columns:max-content 1fr;gap:4px 14px;margin:0}
.checks div{display:contents}
.checks dd{margin:0;color:var(--muted)}
.checks div:target dt,.checks div:target dd{background:#fff7d6}
footer{color:var(--muted);font-size:12.5px}
@media print{
body{background:#fff;font-size:11px}
code,pre{font-size:10px}
main{max-width:none;padding:0}
*{-webkit-print-color-adjust:exact;print-color-adjust:exact}
.tools,.copy{display:none}
.part,.banner{border-color:#999;break-inside:auto}
.finding,.grid tr{break-inside:avoid}
.grid{font-size:9px}
.grid td{min-width:0}
.scroll{overflow:visible}
a{color:inherit;text-decoration:none}
.curl pre{background:#fff;color:#000;border:1px solid #999}
}
`.trim();

const SCRIPT = `
document.addEventListener('click',function(event){
  var button=event.target.closest&&event.target.closest('button.copy');
  if(!button)return;
  var source=document.getElementById(button.getAttribute('data-copy'));
  if(!source)return;
  var done=function(){button.textContent='Copied';setTimeout(function(){button.textContent='Copy';},1500);};
  var select=function(){
    var range=document.createRange();range.selectNodeContents(source);
    var selection=window.getSelection();selection.removeAllRanges();selection.addRange(range);
    try{if(document.execCommand('copy')){done();return;}}catch(e){}
    button.textContent='Selected: Ctrl+C';
  };
  var settled=false;
  var finish=function(copied){if(settled)return;settled=true;if(copied)done();else select();};
  if(navigator.clipboard&&window.isSecureContext){
    navigator.clipboard.writeText(source.textContent).then(function(){finish(true);},function(){finish(false);});
    // A browser that neither grants nor refuses (a file:// page, a headless one): select the text instead.
    setTimeout(function(){finish(false);},800);
  }else finish(false);
});
var only=document.getElementById('only-findings');
if(only)only.addEventListener('change',function(){document.querySelector('table.grid').classList.toggle('only',only.checked);});
`.trim();
