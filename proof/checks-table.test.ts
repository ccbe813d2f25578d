import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { CHECKS } from '../contracts/checks/index.ts';
import { README_PATH, renderChecksTable, withFreshTable } from './checks-table.ts';

test('the checks table of contracts/README.md is fresh (npm run docs:checks regenerates it)', () => {
  const readme = readFileSync(README_PATH, 'utf8');
  assert.equal(readme, withFreshTable(readme), 'run `npm run docs:checks` and commit contracts/README.md');
});

test('the checks table has one row per registered check', () => {
  const rows = renderChecksTable().split('\n').slice(2);
  assert.equal(rows.length, CHECKS.length, 'one row per check');
  for (const check of CHECKS)
    assert.ok(
      rows.some((row) => row.startsWith(`| \`${check.id}\` |`)),
      check.id,
    );
});
