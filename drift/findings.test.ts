import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import {
  applyBaseline,
  causeCounts,
  FindingSet,
  fingerprint,
  groupByCause,
  readBaseline,
  writeBaseline,
} from './findings.ts';
import type { WalkIssue } from './walk.ts';

const dir = mkdtempSync(join(tmpdir(), 'kgate-findings-'));
const issue = (extra: Partial<WalkIssue> = {}): WalkIssue => ({
  kind: 'undocumented-property',
  path: '$.value[0].hotness',
  normalizedPath: '$.value[].hotness',
  message: 'property not in the spec',
  sample: '12',
  ...extra,
});
const context = {
  operationId: 'hotEvents',
  operation: 'GET /eventknowledge/v1.0/hotevents',
  status: 200,
  seenIn: 'case',
};

describe('drift findings: fingerprints and baselines', () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  const SAME: Array<{ given: string; other: WalkIssue }> = [
    { given: 'another array index', other: issue({ path: '$.value[7].hotness' }) },
    { given: 'another sample value', other: issue({ sample: '99', message: 'property not in the spec (sample 99)' }) },
  ];
  for (const { given, other } of SAME) {
    test(`the fingerprint ignores ${given}`, () => {
      assert.equal(fingerprint(other, 'hotEvents', 200), fingerprint(issue(), 'hotEvents', 200));
    });
  }

  const DIFFERENT: Array<{ given: string; other: [WalkIssue, string, number] }> = [
    { given: 'the kind', other: [issue({ kind: 'type-changed' }), 'hotEvents', 200] },
    { given: 'the operation', other: [issue(), 'relatedEvents', 200] },
    { given: 'the status', other: [issue(), 'hotEvents', 404] },
    { given: 'the normalized path', other: [issue({ normalizedPath: '$.value[].score' }), 'hotEvents', 200] },
    { given: 'a new value', other: [issue({ kind: 'new-enum-value', identity: '"News"' }), 'hotEvents', 200] },
  ];
  for (const { given, other } of DIFFERENT) {
    test(`the fingerprint changes with ${given}`, () => {
      assert.notEqual(fingerprint(...other), fingerprint(issue(), 'hotEvents', 200));
    });
  }

  test('an undocumented header is one finding per operation, whatever the status', () => {
    const header = issue({
      kind: 'undocumented-header',
      path: 'header:x-powered-by',
      normalizedPath: 'header:x-powered-by',
    });
    assert.equal(fingerprint(header, 'hotEvents', 200), fingerprint(header, 'hotEvents', 401), 'status ignored');
    assert.notEqual(fingerprint(header, 'hotEvents', 200), fingerprint(header, 'relatedEvents', 200), 'per operation');
    const set = new FindingSet();
    set.add([header], context);
    set.add([header], { ...context, status: 401, seenIn: 'no key' });
    assert.deepEqual(
      set.list().map((finding) => [finding.status, finding.occurrences]),
      [[200, 2]],
      'merged into the first answer that showed it',
    );
  });

  test('repeats merge into one finding with a count', () => {
    const set = new FindingSet();
    set.add([issue(), issue({ path: '$.value[1].hotness' })], context);
    set.add([issue({ path: '$.value[2].hotness' })], { ...context, seenIn: 'later case' });
    const [finding, ...rest] = set.list();
    assert.equal(rest.length, 0);
    assert.equal(finding?.occurrences, 3);
    assert.equal(finding?.path, '$.value[0].hotness', 'the first occurrence is kept');
    assert.equal(finding?.seenIn, 'case');
  });

  test('a baseline file round trip marks known findings and lists resolved ones', () => {
    const set = new FindingSet();
    set.add([issue()], context);
    const file = join(dir, 'baseline.json');
    writeBaseline(file, set.list());
    const next = new FindingSet();
    next.add([issue({ normalizedPath: '$.value[].score', path: '$.value[0].score' })], context);
    next.add([issue()], context);
    const findings = next.list();
    const resolved = applyBaseline(findings, readBaseline(file));
    assert.deepEqual(
      findings.map((finding) => [finding.normalizedPath, finding.known]),
      [
        ['$.value[].hotness', true],
        ['$.value[].score', false],
      ],
    );
    assert.deepEqual(resolved, []);
    assert.deepEqual(applyBaseline(findings.slice(1), readBaseline(file)), [findings[0]!.fingerprint]);
  });

  test('a file that is not a baseline is rejected with its name', () => {
    const file = join(dir, 'other.json');
    writeFileSync(file, '{"findings": 3}');
    assert.throws(() => readBaseline(file), /other\.json is not a kgate drift baseline/);
    assert.throws(() => readBaseline(join(dir, 'missing.json')), /cannot read baseline/);
  });
});

describe('drift findings grouped by cause', () => {
  const place = (operationId: string, status: number, extra: Partial<WalkIssue> = {}) => {
    const set = new FindingSet();
    set.add([issue(extra)], { ...context, operationId, operation: `GET /${operationId}`, status });
    return set.list()[0]!;
  };
  const CASES: Array<{ given: string; a: ReturnType<typeof place>; b: ReturnType<typeof place>; want: boolean }> = [
    {
      given: 'the same path on another operation',
      a: place('hotEvents', 200),
      b: place('relatedEvents', 200),
      want: true,
    },
    { given: 'the same path at another status', a: place('hotEvents', 200), b: place('hotEvents', 400), want: true },
    {
      given: 'another sample of the same field',
      a: place('hotEvents', 200),
      b: place('relatedEvents', 200, { sample: '99' }),
      want: true,
    },
    {
      given: 'another path',
      a: place('hotEvents', 200),
      b: place('hotEvents', 200, { normalizedPath: '$.value[].heat' }),
      want: false,
    },
    {
      given: 'another kind',
      a: place('hotEvents', 200),
      b: place('hotEvents', 200, { kind: 'type-changed' }),
      want: false,
    },
    {
      given: 'another new value',
      a: place('hotEvents', 200, { kind: 'new-enum-value', identity: '"News"' }),
      b: place('relatedEvents', 200, { kind: 'new-enum-value', identity: '"Videos"' }),
      want: false,
    },
    {
      given: 'another undocumented status',
      a: place('hotEvents', 418, { kind: 'undocumented-status', normalizedPath: '$' }),
      b: place('hotEvents', 502, { kind: 'undocumented-status', normalizedPath: '$' }),
      want: false,
    },
  ];
  for (const { given, a, b, want } of CASES) {
    test(`${given}: ${want ? 'one change' : 'two changes'}`, () => {
      assert.notEqual(a.fingerprint, b.fingerprint, 'two findings either way');
      assert.equal(groupByCause([a, b]).length, want ? 1 : 2);
    });
  }

  test('a change is known only when the baseline lists every place; counts are by change', () => {
    const a = { ...place('hotEvents', 200), known: true };
    const b = { ...place('relatedEvents', 200), known: false };
    const c = { ...place('hotEvents', 200, { normalizedPath: '$.x' }), known: true };
    const changes = groupByCause([a, b, c]);
    assert.deepEqual(
      changes.map((change) => [change.places.length, change.known]),
      [
        [2, false],
        [1, true],
      ],
    );
    assert.deepEqual(causeCounts(changes), { total: 2, new: 1, known: 1 });
  });

  test('findings of an older run without a cause group by kind and path', () => {
    const old = [place('hotEvents', 200), place('relatedEvents', 400)].map(({ cause: _cause, ...rest }) => rest);
    assert.equal(groupByCause(old).length, 1);
  });
});
