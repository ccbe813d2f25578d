import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { CHECKS, getCheck } from '../contracts/checks/index.ts';
import { createFaults } from '../reference/faults/index.ts';
import { createVariations } from '../reference/variations/index.ts';
import { FAULT_TABLE } from './fault-table.ts';
import {
  cells,
  interfaceUnits,
  normalize,
  PROMISE_WORDS,
  readInterface,
  requiredUnits,
  sentences,
  snapshotUnits,
} from './interface-units.ts';
import { PROMISES, type PromiseRow } from './promises.ts';
import { PROMISES_PATH, renderPromises } from './promises-doc.ts';

const FAULT_NAMES = new Set(createFaults().map((fault) => fault.name));
const VARIATION_NAMES = new Set(createVariations().map((variation) => variation.name));
const INTERFACE = readInterface();
// Where the interface is not beside the repository (a CI clone of it alone), the table is held
// against the units last read off it, which npm run docs:promises keeps in proof/interface-units.json.
const UNITS = INTERFACE === undefined ? snapshotUnits() : interfaceUnits(INTERFACE);

const label = (row: Pick<PromiseRow, 'section' | 'quote'>) => `${row.section} "${row.quote.slice(0, 80)}"`;

/** What is wrong with one row of the table, against the registry and the catalogues (empty: nothing). */
export function rowProblems(row: PromiseRow): string[] {
  const problems: string[] = [];
  const checks = row.checks ?? [];
  if (checks.length === 0 && !row.why?.trim()) problems.push('neither a check nor a stated reason');
  for (const id of checks) if (!getCheck(id)) problems.push(`no check ${id}`);
  for (const name of row.variations ?? []) if (!VARIATION_NAMES.has(name)) problems.push(`no variation ${name}`);
  if (row.kind === 'promise') {
    if (checks.length === 0) problems.push('a promise without a check');
    if (!row.proof) problems.push('a promise without a fault proving its checks can fail');
    if (!row.severity) problems.push('a promise without a severity');
    if (row.severity !== 'warn' && checks.some((id) => getCheck(id)?.severity === 'warn'))
      problems.push('judged by a warn check, so a warning');
  }
  if (row.kind === 'gap' && !row.why?.trim()) problems.push('a gap without its reason');
  if (row.kind === 'freedom' && !(row.variations?.length || row.why?.trim()))
    problems.push('a freedom with neither a variation nor a reason');
  if (row.proof) {
    const entry = FAULT_TABLE[row.proof.fault];
    if (!FAULT_NAMES.has(row.proof.fault)) problems.push(`no fault ${row.proof.fault} in the catalogue`);
    else if (!entry?.catches.some((id) => checks.includes(id)))
      problems.push(
        `${row.proof.fault} is caught by ${entry?.catches.join(', ') || 'no check'}, none of the row's checks`,
      );
  }
  return problems;
}

test('contracts/PROMISES.md is fresh (npm run docs:promises regenerates it)', () => {
  assert.equal(
    readFileSync(PROMISES_PATH, 'utf8'),
    renderPromises(),
    'run `npm run docs:promises` and commit contracts/PROMISES.md',
  );
});

test('every row has a check or a stated reason, and names only checks, faults and variations that exist', () => {
  const problems = PROMISES.flatMap((row) => rowProblems(row).map((problem) => `${label(row)}: ${problem}`));
  assert.deepEqual(problems, []);
});

test('a row missing its check and reason, or naming what does not exist, is found', () => {
  const base: PromiseRow = {
    section: '4.3',
    quote: 'x',
    kind: 'promise',
    checks: ['orderby-is-honoured'],
    proof: { fault: 'evaluate-orderby-reversed', breaks: 'this promise' },
    severity: 'fail',
  };
  const cases: { given: PromiseRow; want: RegExp | undefined }[] = [
    { given: base, want: undefined },
    { given: { ...base, checks: [] }, want: /neither a check nor a stated reason/ },
    {
      given: { ...base, kind: 'gap', checks: [], proof: undefined, severity: undefined },
      want: /a gap without its reason/,
    },
    { given: { ...base, checks: ['orderby-is-honored'] }, want: /no check orderby-is-honored/ },
    { given: { ...base, proof: { fault: 'no-such-fault', breaks: 'this promise' } }, want: /no fault no-such-fault/ },
    {
      given: { ...base, proof: { fault: 'evaluate-year-as-string', breaks: 'this promise' } },
      want: /none of the row's checks/,
    },
    { given: { ...base, variations: ['no-such-variation'] }, want: /no variation no-such-variation/ },
    { given: { ...base, checks: ['histogram-ordered-by-count'] }, want: /a warning/ },
    { given: { ...base, kind: 'freedom', proof: undefined }, want: /neither a variation nor a reason/ },
  ];
  for (const { given, want } of cases) {
    const problems = rowProblems(given).join('; ');
    if (want) assert.match(problems, want, JSON.stringify(given));
    else assert.equal(problems, '', JSON.stringify(given));
  }
});

test('proof/interface-units.json holds the units of the interface as it is (npm run docs:promises rewrites it)', {
  skip: INTERFACE === undefined && 'the interface is not beside the repository: its last units are used',
}, () => {
  assert.deepEqual(snapshotUnits(), interfaceUnits(INTERFACE!), 'run `npm run docs:promises`');
});

test('the table quotes every row of sections 2, 4, 5 and 7, every item of section 5, and every sentence with a word of scope, order or freedom, read off the interface', () => {
  const units = UNITS;
  const quoted = new Set(PROMISES.map((row) => `${row.section}\u0000${normalize(row.quote)}`));
  const missing = requiredUnits(units)
    .filter((unit) => !quoted.has(`${unit.section}\u0000${unit.text}`))
    .map((unit) => `${unit.section} ${unit.kind}: ${unit.text}`);
  assert.deepEqual(missing, [], 'proof/promises.ts must quote these');
  const known = new Set(units.map((unit) => `${unit.section}\u0000${unit.text}`));
  const stale = PROMISES.filter((row) => !known.has(`${row.section}\u0000${normalize(row.quote)}`)).map(label);
  assert.deepEqual(stale, [], 'every quote is a sentence, item or row of the interface, in the section named');
  // The interface's own words, counted: a table that quoted nothing would pass the first assertion only
  // if the interface had no tables and no such sentences.
  const required = requiredUnits(units);
  assert.ok(required.filter((unit) => unit.kind === 'row').length >= 90, 'the interface has its tables');
  assert.ok(required.filter((unit) => unit.kind === 'sentence').length >= 10, 'and its sentences of scope and order');
});

test('a sentence that says "may" is a freedom the gate must allow: its row names a variation or says why none shows it', () => {
  const freedoms = PROMISES.filter((row) => /\bmay\b/i.test(row.quote));
  assert.ok(freedoms.length >= 5, `the interface's "may" sentences are in the table (${freedoms.length})`);
  assert.deepEqual(freedoms.filter((row) => !(row.variations?.length || row.why?.trim())).map(label), []);
});

test('every legitimate variation and every fault of one promise is traced to a promise of the table', () => {
  const named = new Set(PROMISES.flatMap((row) => row.variations ?? []));
  assert.deepEqual(
    [...VARIATION_NAMES].filter((name) => !named.has(name)),
    [],
    'a variation no row names allows nothing the interface says',
  );
  const proving = new Set(PROMISES.flatMap((row) => (row.proof ? [row.proof.fault] : [])));
  assert.deepEqual(
    Object.entries(FAULT_TABLE)
      .filter(([name, entry]) => entry.only && !proving.has(name))
      .map(([name]) => name),
    [],
    'a fault of one promise proves that promise',
  );
  const judging = new Set(PROMISES.flatMap((row) => row.checks ?? []));
  assert.deepEqual(
    CHECKS.map((check) => check.id).filter(
      (id) =>
        !judging.has(id) &&
        !['latency-within-budget', 'response-is-framed', 'connection-completes', 'body-within-size-cap'].includes(id),
    ),
    [],
    'every check judges a promise of the interface (the transport checks judge what HTTP promises)',
  );
});

test('interface units: sentences split outside code and brackets, rows into their cells', () => {
  const cases: { given: string; want: string[] }[] = [
    { given: 'One. Two (e.g. three). Four', want: ['One.', 'Two (e.g. three).', 'Four'] },
    { given: 'A `x. y` b. C', want: ['A `x. y` b.', 'C'] },
    { given: 'Form <answer_url>#WebPages.<index>, name.', want: ['Form <answer_url>#WebPages.<index>, name.'] },
  ];
  for (const { given, want } of cases) assert.deepEqual(sentences(given), want, given);
  assert.deepEqual(cells('| 400 | `{ a | b }` | c |'), ['400', '`{ a | b }`', 'c']);
  const units = interfaceUnits('## 2. X\n\n| a | b |\n|---|---|\n| c | d |\n\nIt may be so. Fine.\n\n1. Only this.\n');
  assert.deepEqual(units, [
    { section: '2', kind: 'row', text: 'c | d' },
    { section: '2', kind: 'sentence', text: 'It may be so.' },
    { section: '2', kind: 'sentence', text: 'Fine.' },
    { section: '2', kind: 'item', text: 'Only this.' },
  ]);
  assert.deepEqual(
    requiredUnits(units).map((unit) => unit.text),
    ['c | d', 'It may be so.', 'Only this.'],
  );
  assert.ok(PROMISE_WORDS.test('Ordering of answers') && !PROMISE_WORDS.test('a small call'));
});
