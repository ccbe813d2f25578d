// The properties in a whole run, through the real CLI against faults of the reference server:
// they judge the fixed battery's answers (a fault only another check's request triggers), and
// run exactly when their ids are selected, whether positive-input-accepted is or not.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type ReferenceServer, startReferenceServer } from '../../reference/index.ts';
import type { RunSummary } from '../../reporting/summary.ts';
import { runKgate } from '../../scripts/run-process.ts';

let server: ReferenceServer;
let dir: string;
before(async () => {
  server = await startReferenceServer({ quiet: true });
  dir = mkdtempSync(join(tmpdir(), 'kgate-properties-'));
});
after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

let runs = 0;
async function conform(fault: string, args: string[]): Promise<{ code: number | null; result?: RunSummary }> {
  const { code, stdout } = await runKgate(
    [
      'conform',
      '--base-url',
      `${server.url}/faults/${fault}`,
      '--report-dir',
      join(dir, `run-${++runs}`),
      '--json',
      ...args,
    ],
    {
      cwd: dir,
      env: {
        KGATE_BASE_URL: '',
        KGATE_CONFORM_OPTIONS: '',
        GITHUB_STEP_SUMMARY: '',
        KGATE_KEY: server.keys.full,
        KGATE_KEY_UNSUBSCRIBED: '',
        KGATE_KEY_EXHAUSTED: '',
      },
    },
  );
  try {
    return { code, result: JSON.parse(stdout) as RunSummary };
  } catch {
    return { code };
  }
}

const EVALUATE = 'GET /academic/v1.0/evaluate';
const INTERPRET = 'GET /academic/v1.0/interpret';
/**
 * Interpret by either method: the plan sends its case that the fault breaks (complete=0 with a
 * count) by one of them, which one being the plan's to choose.
 */
const INTERPRET_EITHER = /^paging-respects-size on (GET|POST) \/academic\/v1\.0\/interpret$/;
/** The planned generated requests of interpret, with seed 1. */
const SEEDED = ['--seed', '1', '--grep', '/academic/v1.0/interpret'];

test('a property judges every answer it applies to, and runs exactly when its id is selected', {
  timeout: 600_000,
}, async () => {
  const cases: {
    given: string;
    fault: string;
    args: string[];
    /** The failed cells as `check on operation`, each a name or a pattern. */
    want: { code: number; failed: (string | RegExp)[]; cells?: Record<string, string | undefined> };
  }[] = [
    {
      given:
        "the fixed battery alone: another check's request (histogram-agrees-with-evaluate's count=1000) triggers it",
      fault: 'evaluate-large-page-attributes-ignored',
      args: ['--generate', '0', '--checks', 'attributes-are-honoured,histogram-agrees-with-evaluate'],
      want: {
        code: 1,
        failed: [`attributes-are-honoured on ${EVALUATE}`],
        cells: { [`${EVALUATE} attributes-are-honoured`]: 'fail' },
      },
    },
    {
      given: 'the property excluded',
      fault: 'evaluate-large-page-attributes-ignored',
      args: ['--generate', '0', '--checks', 'histogram-agrees-with-evaluate'],
      want: { code: 0, failed: [] },
    },
    {
      given: 'a property selected without positive-input-accepted judges the generated requests',
      fault: 'interpret-count-ignored-complete-0',
      args: ['--checks', 'paging-respects-size', ...SEEDED],
      want: {
        code: 1,
        failed: [INTERPRET_EITHER],
        cells: { [`${INTERPRET} positive-input-accepted`]: undefined },
      },
    },
    {
      given: 'positive-input-accepted excluded: the properties still judge the generated requests',
      fault: 'interpret-count-ignored-complete-0',
      args: [
        '--checks',
        'paging-respects-size,positive-input-accepted',
        '--exclude-checks',
        'positive-input-accepted',
        ...SEEDED,
      ],
      want: { code: 1, failed: [INTERPRET_EITHER] },
    },
    {
      given: 'positive-input-accepted without the property: the generated page sizes are not judged',
      fault: 'interpret-count-ignored-complete-0',
      args: ['--checks', 'positive-input-accepted', ...SEEDED],
      want: { code: 0, failed: [] },
    },
  ];
  for (const { given, fault, args, want } of cases) {
    const { code, result } = await conform(fault, args);
    assert.ok(result, `${given}: a result`);
    const [target] = result.targets;
    const failed = [...new Set(target!.failures.map((failure) => `${failure.check} on ${failure.operation}`))].sort();
    assert.equal(failed.length, want.failed.length, `${given}: ${failed.join(', ')}`);
    for (const [i, wanted] of want.failed.entries()) {
      if (typeof wanted === 'string') assert.equal(failed[i], wanted, given);
      else assert.match(failed[i]!, wanted, given);
    }
    assert.equal(code, want.code, given);
    for (const [cell, value] of Object.entries(want.cells ?? {})) {
      const at = cell.lastIndexOf(' ');
      assert.equal(target!.matrix[cell.slice(0, at)]?.[cell.slice(at + 1)], value, `${given}: ${cell}`);
    }
    for (const failure of target!.failures) assert.match(failure.curl ?? '', /\*\*\*/, `${given}: key masked`);
  }
});
