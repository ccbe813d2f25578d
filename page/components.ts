// The components every page of kgate is built from: the verdict banner with its facts and count
// chips, titled sections, the operation x check matrix, the finding card (with the places one
// cause touched and its curl line), tables, lists, and folded long text. Each takes plain values
// and passes every word through text() (masked, then escaped); each state is an icon, a word and
// a colour.
import { type Html, markup, slug, text } from './html.ts';

/** A state a page shows: a verdict, a matrix cell, a table row, a chip. */
export type Tone = 'pass' | 'fail' | 'known' | 'warn' | 'skip' | 'info';
/** What one cell of a matrix says (`n/a`: the check does not apply to the operation). */
export type Cell = Tone | 'n/a';

/** The icon of each state (beside its word: a page reads without colour). */
export const ICON: Record<Cell, string> = {
  pass: '✓',
  fail: '✗',
  known: '◐',
  warn: '⚠',
  skip: '↷',
  info: 'ℹ',
  'n/a': '·',
};
/** The word of each state. */
export const WORD: Record<Cell, string> = {
  pass: 'pass',
  fail: 'FAIL',
  known: 'known',
  warn: 'warn',
  skip: 'skip',
  info: 'info',
  'n/a': '',
};

/** Longest text a page shows open; longer text shows its start and length, the whole of it one click away. */
export const PAGE_TEXT_LIMIT = 600;
/** Characters of a folded text a page shows. */
export const PAGE_TEXT_START = 240;

/** The class of a cell or tone. */
export function toneClass(cell: Cell): string {
  return cell === 'n/a' ? 'na' : cell;
}

/** A state as every page writes it: its icon, its word (default the state's own) and its colour. */
export function mark(tone: Cell, word = WORD[tone]): string {
  return `<span class="mark ${toneClass(tone)}"><span aria-hidden="true">${ICON[tone]}</span> ${text(word)}</span>`;
}

/** The verdict a page opens with: `pass` and `fail` are a command's exit code; `info` says no verdict is given. */
export type Verdict = 'pass' | 'fail' | 'info';

/** One count chip under the verdict: coloured as `cell` when above zero. */
export interface Chip {
  label: string;
  value: number;
  cell: Cell;
}

/** A labelled fact of the banner. */
export interface Fact {
  label: string;
  value: string;
}

/** The banner of a page: the verdict (icon and word), the tool, the headline, its facts and its count chips. */
export function banner(model: {
  tool: string;
  verdict: Verdict;
  /** The word of the verdict (default PASS, FAIL, or INFO). */
  word?: string;
  headline: string;
  facts: Fact[];
  counts: Chip[];
}): string {
  const word = model.word ?? (model.verdict === 'pass' ? 'PASS' : model.verdict === 'fail' ? 'FAIL' : 'INFO');
  const icon = model.verdict === 'pass' ? ICON.pass : model.verdict === 'fail' ? ICON.fail : ICON.info;
  return [
    `<header class="banner ${model.verdict}" id="verdict">`,
    `<div class="verdict"><span class="icon" aria-hidden="true">${icon}</span><span class="word">${text(word)}</span></div>`,
    '<div class="about">',
    `<h1>${text(model.tool)}: ${text(word)}<span class="headline"> (${text(model.headline)})</span></h1>`,
    facts(model.facts),
    chips(model.counts),
    '</div>',
    '</header>',
  ].join('\n');
}

/** Labelled facts on one wrapping line. */
export function facts(list: Fact[]): string {
  return `<dl class="facts">${list.map((fact) => `<div><dt>${text(fact.label)}</dt><dd>${text(fact.value)}</dd></div>`).join('')}</dl>`;
}

/** Count chips: each a number and its label, coloured by its state when above zero. */
export function chips(counts: Chip[]): string {
  return `<ul class="counts">${counts
    .map(
      (count) =>
        `<li class="chip ${count.value > 0 ? toneClass(count.cell) : 'zero'}" data-count="${text(count.label)}"><b>${count.value}</b> ${text(count.label)}</li>`,
    )
    .join('')}</ul>`;
}

/** A titled part of a page. `tone` marks its border (`fail`: the first thing a reader looks for). */
export function section(options: {
  id: string;
  title: string;
  tone?: Tone | 'changes' | 'matrix';
  /** The number beside the title. */
  count?: number;
  intro?: string;
  body: string;
  /** Extra attributes, already built (`data-operation="..."`). */
  attributes?: string;
}): string {
  return [
    `<section id="${text(options.id)}" class="part ${options.tone ?? 'info'}"${options.attributes ? ` ${options.attributes}` : ''}>`,
    `<h2>${text(options.title)}${options.count === undefined ? '' : ` <span class="n">${options.count}</span>`}</h2>`,
    options.intro ? `<p class="intro">${text(options.intro)}</p>` : '',
    options.body,
    '</section>',
  ]
    .filter(Boolean)
    .join('\n');
}

/** A column of a table: its heading, and whether it holds numbers (right-aligned). */
export interface Column {
  title: string;
  numeric?: boolean;
}

/** A row of a table: its cells (the first one is the row's heading), and its state (a failing row is tinted). */
export interface Row {
  cells: (string | number | Html)[];
  tone?: Tone;
  /** Extra attributes of the row, already built. */
  attributes?: string;
}

/** A data table; the first cell of each row heads it. */
export function table(options: { id?: string; columns: (string | Column)[]; rows: Row[] }): string {
  const columns = options.columns.map((column) => (typeof column === 'string' ? { title: column } : column));
  const cls = (index: number) => (columns[index]?.numeric ? ' class="num"' : '');
  const head = columns.map((column, index) => `<th scope="col"${cls(index)}>${text(column.title)}</th>`).join('');
  const body = options.rows.map((row) => {
    const cells = row.cells.map((cell, index) =>
      index === 0 ? `<th scope="row">${markup(cell)}</th>` : `<td${cls(index)}>${markup(cell)}</td>`,
    );
    const attributes = `${row.tone ? ` class="${row.tone}"` : ''}${row.attributes ? ` ${row.attributes}` : ''}`;
    return `<tr${attributes}>${cells.join('')}</tr>`;
  });
  return `<div class="scroll"><table class="data"${options.id ? ` id="${text(options.id)}"` : ''}><thead><tr>${head}</tr></thead><tbody>${body.join('')}</tbody></table></div>`;
}

/** A list entry: text, an optional code part after it, an anchor. */
export interface Item {
  text: string;
  code?: string;
  id?: string;
}

/** A bulleted list. */
export function items(list: Item[]): string {
  return `<ul class="items">${list
    .map(
      (item) =>
        `<li${item.id ? ` id="${text(item.id)}"` : ''}>${text(item.text)}${item.code ? ` ${fold(item.code, { code: true })}` : ''}</li>`,
    )
    .join('')}</ul>`;
}

/**
 * Text that may be long: whole when at most PAGE_TEXT_LIMIT characters; else its start and its
 * length, and the whole text inside a <details> (one click, no script needed). `id` names the
 * element holding the whole text (a copy button copies it whole, open or not).
 */
export function fold(value: string, options: { id?: string; code?: boolean; pre?: boolean } = {}): string {
  const tag = options.pre ? 'pre' : options.code ? 'code' : 'span';
  const id = options.id ? ` id="${text(options.id)}"` : '';
  if (value.length <= PAGE_TEXT_LIMIT)
    return tag === 'span' && !id ? text(value) : `<${tag}${id}>${text(value)}</${tag}>`;
  const length = value.length.toLocaleString('en-US');
  return `<details class="fold"><summary><${tag} class="start">${text(value.slice(0, PAGE_TEXT_START))}…</${tag}> (${length} characters: show all)</summary><${tag}${id}>${text(value)}</${tag}></details>`;
}

/** A command that reproduces something, folded when long, with a button that copies it whole. */
export function curlBlock(id: string, curl: string, label = 'reproduce'): string {
  return `<div class="curl"><span class="label">${text(label)}</span><div class="text">${fold(curl, { id, pre: true })}</div><button type="button" class="copy" data-copy="${text(id)}">Copy</button></div>`;
}

/** One finding, as the terminal prints it: a title line, labelled fields, the places its cause touched, the curl lines. */
export interface Finding {
  /** `fail` fails the run; `known` is accepted by a baseline; `warn` fails only under --strict; `info` only informs. */
  level: 'fail' | 'known' | 'warn' | 'info';
  /** The check id or kind (the matrix row it belongs to). */
  check: string;
  /** The operation label (the matrix column it belongs to); for a finding with places, the first place's. */
  operation: string;
  title: string;
  /** How often it was seen, in words (`seen by 3 tests`). */
  seen?: string;
  /** `received`, `documented`, `at`, `body`, `seed`, `baseline`... in the order shown. */
  fields: { label: string; value: string }[];
  /** Every place one cause touched (operation and status, with what tells them apart), when it touched more than one. */
  places?: { operation: string; text: string }[];
  /** A command that reproduces it, the key masked. */
  curl?: string;
  /** Further commands, each with its label (`current`: the same request to the other deployment). */
  curls?: { label: string; curl: string }[];
}

/** The badge of a finding's level. */
const LEVEL_MARK: Record<Finding['level'], string> = {
  fail: `${ICON.fail} FAIL`,
  known: `${ICON.known} known`,
  warn: `${ICON.warn} warn`,
  info: `${ICON.info} info`,
};

/** A finding card. Fields named `body` and `at` show as code; every long value folds. */
export function findingCard(finding: Finding, id: string): string {
  const where = finding.places && finding.places.length > 1 ? `${finding.places.length} places` : finding.operation;
  const curls = [...(finding.curl ? [{ label: 'reproduce', curl: finding.curl }] : []), ...(finding.curls ?? [])];
  return [
    `<article class="finding ${finding.level}" id="${text(id)}">`,
    `<h3><span class="badge ${finding.level}">${LEVEL_MARK[finding.level]}</span> <code>[${text(finding.check)}]</code> ${text(where)}: ${text(finding.title)}${finding.seen ? ` <span class="seen">(${text(finding.seen)})</span>` : ''}</h3>`,
    `<dl>${finding.fields
      .map(
        (field) =>
          `<div><dt>${text(field.label)}</dt><dd>${fold(field.value, { code: field.label === 'body' || field.label === 'at' })}</dd></div>`,
      )
      .join('')}${
      finding.places && finding.places.length > 1
        ? `<div><dt>places</dt><dd><ul class="places">${finding.places.map((place) => `<li>${text(place.text)}</li>`).join('')}</ul></dd></div>`
        : ''
    }</dl>`,
    ...curls.map((entry, index) => curlBlock(`${id}-curl${index === 0 ? '' : `-${index}`}`, entry.curl, entry.label)),
    '</article>',
  ].join('\n');
}

/** The operation x check matrix. */
export interface Matrix {
  title: string;
  /** Operation labels: the columns. */
  operations: string[];
  /** Check ids (or finding kinds): the rows; `note` follows the id (`warn`). */
  rows: { id: string; note?: string }[];
  /** operation -> row id -> cell; absent: does not apply. */
  cells: Record<string, Record<string, Cell>>;
  /** operation -> row id -> the anchor a cell links to, where it is not a finding or item of the page. */
  anchors?: Record<string, Record<string, string>>;
  /** One sentence under the matrix: what the states mean here. */
  legend: string;
}

/** The column heading of an operation: its short name over its method (`evaluate` / `GET`). */
function operationHead(operation: string, short: string): string {
  const [name, method] = short.split(' ');
  // Long names may break where their words meet (calc|histogram, answer|search).
  const breakable = text(name ?? operation).replace(/^(calc|answer|related|hot|url)(?=[a-z]{4})/, '$1<wbr>');
  return `<th scope="col" title="${text(operation)}"><span>${breakable}</span><small>${text(method ?? '')}</small></th>`;
}

/**
 * The matrix: a cell links to `anchorOf(operation, row)` (its finding, its skip reason), else to
 * what its row verifies (`#check-<id>`, when `described` has the row).
 */
export function matrix(
  model: Matrix,
  options: {
    anchorOf: (operation: string, row: string) => string | undefined;
    described: Set<string>;
    shortLabel: (operation: string) => string;
  },
): string {
  const head = model.operations.map((operation) => operationHead(operation, options.shortLabel(operation))).join('');
  const rows = model.rows.map((row) => {
    const cells = model.operations.map((operation) => model.cells[operation]?.[row.id] ?? 'n/a');
    const clean = cells.every((cell) => cell === 'pass' || cell === 'n/a');
    const tds = model.operations
      .map((operation, index) => {
        const cell = cells[index]!;
        if (cell === 'n/a') return '<td class="na" title="does not apply">·</td>';
        const label = `${row.id} on ${operation}: ${WORD[cell] || cell}`;
        const anchor =
          options.anchorOf(operation, row.id) ??
          model.anchors?.[operation]?.[row.id] ??
          (options.described.has(row.id) ? `check-${slug(row.id)}` : undefined);
        const inner = `<span aria-hidden="true">${ICON[cell]}</span> ${WORD[cell]}`;
        // The headers name the cell for a screen reader; a title is worth its bytes only where there is something to see.
        const title = cell === 'pass' ? '' : ` title="${text(label)}"`;
        return `<td class="${toneClass(cell)}">${anchor ? `<a href="#${anchor}"${title}>${inner}</a>` : `<span${title}>${inner}</span>`}</td>`;
      })
      .join('');
    const name = options.described.has(row.id)
      ? `<a href="#check-${text(slug(row.id))}">${text(row.id)}</a>`
      : text(row.id);
    return `<tr class="${clean ? 'clean' : 'dirty'}"><th scope="row"><code>${name}</code>${row.note ? ` <span class="tag">${text(row.note)}</span>` : ''}</th>${tds}</tr>`;
  });
  const keys = (['pass', 'fail', 'known', 'warn', 'skip'] as const).map(
    (cell) => `<span class="key ${cell}">${ICON[cell]} ${WORD[cell]}</span>`,
  );
  return section({
    id: 'matrix',
    title: model.title,
    tone: 'matrix',
    body: [
      '<p class="tools"><label><input type="checkbox" id="only-findings"> only rows with a finding or a skip</label></p>',
      '<div class="scroll">',
      `<table class="grid"><thead><tr><th scope="col" class="corner">check \\ operation</th>${head}</tr></thead>`,
      `<tbody>${rows.join('\n')}</tbody></table>`,
      '</div>',
      `<p class="legend">${keys.join(' ')} <span class="key na">· does not apply</span> ${text(model.legend)}</p>`,
    ].join('\n'),
  });
}
