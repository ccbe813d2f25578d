import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { OPERATION_IDS } from './spec.ts';
import { validateResponse } from './validator.ts';

const DIR = fileURLToPath(new URL('./real-payloads/', import.meta.url));
const KGATE = fileURLToPath(new URL('../bin/kgate.mjs', import.meta.url));

/** One row of verdicts.json: a real body and the verdict kgate must give on it. */
interface Verdict {
  file: string;
  operationId: string;
  status: number;
  request: string;
  verdict: 'accept' | 'reject';
  errors: string[];
  warnings: string[];
  why: string;
}

const { payloads } = JSON.parse(readFileSync(`${DIR}verdicts.json`, 'utf8')) as { payloads: Verdict[] };

describe('real payloads get the verdict verdicts.json gives', () => {
  test('verdicts.json covers every JSON file in the folder, once each', () => {
    const files = readdirSync(DIR)
      .filter((name) => name.endsWith('.json') && name !== 'verdicts.json')
      .sort();
    assert.deepEqual(payloads.map((p) => p.file).sort(), files, 'one verdict per payload file');
  });

  test('every verdict is well formed', () => {
    for (const p of payloads) {
      assert.ok(
        (OPERATION_IDS as readonly string[]).includes(p.operationId),
        `${p.file}: operationId ${p.operationId}`,
      );
      assert.ok(p.request.length > 0 && p.why.length > 0, `${p.file}: request and why are given`);
      assert.equal(p.errors.length > 0, p.verdict === 'reject', `${p.file}: a reject lists its errors, an accept none`);
    }
    assert.ok(
      payloads.some((p) => p.verdict === 'reject'),
      'the corpus holds a body the gate must reject',
    );
  });

  for (const p of payloads) {
    const path = `${DIR}${p.file}`;
    const want = { valid: p.verdict === 'accept', errors: p.errors, warnings: p.warnings };

    test(`${p.file}: ${p.verdict} through validateResponse`, () => {
      const body = JSON.parse(readFileSync(path, 'utf8'));
      const result = validateResponse(p.operationId, p.status, 'application/json; charset=utf-8', body);
      assert.equal(result.documented, true, 'the status is documented');
      assert.deepEqual(
        {
          valid: result.valid,
          errors: result.errors.map((e) => e.pointer),
          warnings: result.warnings.map((w) => w.pointer),
        },
        want,
        `${p.file} (${p.why})`,
      );
    });

    test(`${p.file}: ${p.verdict} through kgate validate`, () => {
      const run = spawnSync(
        process.execPath,
        [KGATE, 'validate', '--operation', p.operationId, '--status', String(p.status), path],
        { encoding: 'utf8' },
      );
      assert.equal(run.stderr, '', 'nothing on standard error');
      assert.equal(run.status, p.verdict === 'accept' ? 0 : 1, `exit code of a ${p.verdict}: ${run.stdout}`);
      assert.match(run.stdout, p.verdict === 'accept' ? /^valid/ : /^invalid: /, 'the headline');
      for (const pointer of p.errors)
        assert.ok(run.stdout.includes(`\n  ${pointer}  `), `error at ${pointer} printed: ${run.stdout}`);
      for (const pointer of p.warnings)
        assert.ok(
          run.stdout.includes(`\n  warning: ${pointer} is expected`),
          `warning ${pointer} printed: ${run.stdout}`,
        );
    });
  }
});
