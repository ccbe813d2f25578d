// test-runner: long (twelve conform runs against misbehaving connections)
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type HostileBehaviour, startHostileTarget } from '../proof/hostile-target.ts';
import { type ReferenceServer, startReferenceServer } from '../reference/index.ts';
import { ROOT, referenceKeyEnv, runKgate } from '../scripts/run-process.ts';

// kgate conform against a target whose evaluate answers correctly but abuses the connection, every
// other operation being the reference server's. Closing a kept-alive connection is allowed at any
// moment: the gate must pass, counting the requests it sent again. Bytes after an answer must be
// named on evaluate and nowhere else. The close races depend on timing, so each behaviour is judged
// several times and must get the same verdict every time.

const REPORT_DIR = 'reports/connections-test';
const RUNS = 3;
const EVALUATE = ['GET /academic/v1.0/evaluate', 'POST /academic/v1.0/evaluate'];

interface Finding {
  check: string;
  operation: string;
}
interface Summary {
  verdict: string;
  targets: { failures: Finding[]; notes: string[] }[];
}

let reference: ReferenceServer;
before(async () => {
  reference = await startReferenceServer({ quiet: true });
});
after(async () => {
  await reference.close();
  rmSync(join(ROOT, REPORT_DIR), { recursive: true, force: true });
});

async function conformAgainst(behaviour: HostileBehaviour, run: number) {
  const target = await startHostileTarget({ upstream: reference.url, behaviour });
  try {
    const result = await runKgate(['conform', '--base-url', target.url, '--generate', '0', '--json'], {
      env: {
        KGATE_BASE_URL: '',
        GITHUB_STEP_SUMMARY: '',
        ...referenceKeyEnv(reference.keys),
        KGATE_CONFORM_OPTIONS: JSON.stringify({ reportDir: `${REPORT_DIR}/${behaviour}-${run}` }),
      },
      timeoutMs: 240_000,
    });
    return { ...result, summary: JSON.parse(result.stdout) as Summary };
  } finally {
    await target.close();
  }
}

/** The retries the summary's note counts, 0 without a note. */
function retries(summary: Summary): number {
  const note = summary.targets[0]!.notes.find((text) =>
    /request\(s\) were sent again on a fresh connection/.test(text),
  );
  return note ? Number(/^(\d+) request/.exec(note)![1]) : 0;
}

describe('kgate conform against a target whose evaluate abuses the connection', () => {
  const closing: { given: HostileBehaviour; retriesExpected: boolean }[] = [
    { given: 'close-after-answer', retriesExpected: false },
    // Closed 15 to 40 ms after an answer, around the client's 25 ms rest: some closes race a request.
    { given: 'close-between-answers', retriesExpected: true },
    { given: 'keep-alive-then-close', retriesExpected: false },
  ];
  for (const { given, retriesExpected } of closing) {
    test(`${given}: passes with no failure anywhere, ${RUNS} times, retries counted in a note`, async () => {
      let retried = 0;
      for (let run = 1; run <= RUNS; run++) {
        const { code, summary, stderr } = await conformAgainst(given, run);
        assert.deepEqual(summary.targets[0]!.failures, [], `run ${run}: no failure\n${stderr.slice(-1500)}`);
        assert.equal(code, 0, `run ${run}: the gate passes`);
        retried += retries(summary);
      }
      if (retriesExpected) assert.ok(retried > 0, 'the races that happened are counted in the notes');
    });
  }

  test(`stray-response: named on evaluate as response-is-framed and nowhere else, ${RUNS} times`, async () => {
    for (let run = 1; run <= RUNS; run++) {
      const { code, summary } = await conformAgainst('stray-response', run);
      const failures = summary.targets[0]!.failures;
      assert.equal(code, 1, `run ${run}`);
      assert.deepEqual(
        [...new Set(failures.map((failure) => `${failure.check} ${failure.operation}`))].sort(),
        EVALUATE.map((operation) => `response-is-framed ${operation}`),
        `run ${run}: ${JSON.stringify(failures.map((failure) => [failure.check, failure.operation]))}`,
      );
    }
  });
});
