import assert from 'node:assert/strict';
import { test } from 'node:test';
import { contradictions, sourcePaths, testLines } from './terminal-claims.ts';

test('contradictions: a count next to a verdict word must be the verdict own', () => {
  const verdict = { passed: 243, failed: 2, warnings: 0, skipped: 26 };
  const cases = [
    { given: '  cells:     243 passed, 2 failed, 0 warnings, 26 skipped (operation x check)', want: [] },
    { given: 'kgate conformance: FAIL (2 failed cells, 2 distinct failures)', want: [] },
    { given: '  154 passed (12.6s)', want: [['passed', 154]] },
    { given: '  3 skipped', want: [['skipped', 3]] },
    { given: 'kgate fuzz: FAIL: 2 finding(s) in 500 cases', want: [['findings', 2]] },
    { given: '   2s     100/500 cases  50 cases/s  120 requests  3 finding(s) so far', want: [] },
  ];
  for (const { given, want } of cases) {
    assert.deepEqual(
      contradictions(given, verdict).map((item) => [item.word, item.claimed]),
      want,
      given,
    );
  }
  assert.deepEqual(
    contradictions('drift: 1 change (1 failing, 0 known) at 28 places', {
      changes: 1,
      failing: 1,
      known: 0,
      places: 28,
    }),
    [],
  );
  assert.deepEqual(
    contradictions('FAIL  undocumented-property $.requestId: x (28 places)', { changes: 3, places: 40 }),
    [],
    "a change's own places are not the verdict's total",
  );
});

test("sourcePaths and testLines find Playwright's list reporter and stack frames, not report files or URLs", () => {
  const listLine =
    '[12/180] [conformance] › run/declare-tests.ts:13:5 › GET /academic/v1.0/interpret › interpret-timeout-honoured';
  assert.deepEqual(sourcePaths(listLine), ['run/declare-tests.ts:13:5']);
  assert.deepEqual(testLines(listLine), [listLine]);
  assert.deepEqual(sourcePaths('    at run (/work/kgate/dist/cli/main.js:40:11)'), [
    '/work/kgate/dist/cli/main.js:40:11',
  ]);
  const clean =
    "kgate conform: FAIL; open reports/conformance/x/report.html (also summary.md, summary.json, junit.xml)\n  reproduce:  curl -sS 'http://127.0.0.1:9/academic/v1.0/evaluate?expr=Y%3E1'";
  assert.deepEqual(sourcePaths(clean), []);
  assert.deepEqual(testLines(clean), []);
});
