import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultKeys } from '../reference/index.ts';
import { renderSweep, runSweep } from './fault-sweep.ts';
import { scanForSecrets } from './secret-scan.ts';

test('the suite passes the clean reference server and catches every fault of its catalogue', {
  timeout: 600_000,
}, async () => {
  const result = await runSweep();
  console.log(renderSweep(result));
  assert.ok(result.clean, 'the clean server must be part of the sweep');
  assert.deepEqual(result.clean.failures, [], 'the clean reference server must pass every check');
  assert.deepEqual(result.clean.warnings, [], 'the clean reference server must raise no warning');
  assert.deepEqual(result.unknownFaults, [], 'every catalogue fault needs an entry in contracts/fault-table.ts');
  assert.deepEqual(
    result.faults
      .filter((verdict) => !verdict.caught)
      .map(
        (verdict) =>
          `${verdict.fault}: want ${verdict.expected.join(', ') || 'a pass'}, tripped ${verdict.tripped.join(', ') || 'nothing'}`,
      ),
    [],
    'every forbidden and hostile fault must trip its checks, and every drift fault must pass',
  );
  assert.deepEqual(
    result.untrippedChecks,
    [],
    'a check that no fault can trip is a defect: add the fault or drop the check',
  );
  const keys = Object.values(defaultKeys());
  assert.deepEqual(scanForSecrets(result.reportDir, keys), [], 'no report file may contain a subscription key');
});
