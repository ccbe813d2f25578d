import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type ReferenceServer, startReferenceServer } from '../reference/index.ts';
import { excuseOf, runSchemathesis, SCHEMATHESIS, schemathesisPresent } from '../scripts/schemathesis.ts';

const present = schemathesisPresent();
if (!present) console.warn(`SKIPPED: Schemathesis not found at ${SCHEMATHESIS} (../shared is absent)`);

let server: ReferenceServer;
before(async () => {
  if (present) server = await startReferenceServer({ quiet: true, rateLimit: 1e9 });
});
after(async () => {
  await server?.close();
});

test("Schemathesis reading the spec finds nothing against the clean reference server that is the spec's fault", {
  skip: present ? false : `Schemathesis not found at ${SCHEMATHESIS}`,
  // A hang guard, not a budget: the peer takes minutes on a loaded machine.
  timeout: 840_000,
}, async () => {
  const run = await runSchemathesis({ baseUrl: server.url, key: server.keys.full, examples: 10 });
  assert.ok(run.cases > 0, `Schemathesis ran (exit ${run.exitCode}):\n${run.output.slice(-2000)}`);
  const excused = run.failures.map((failure) => ({
    failure,
    reason: excuseOf(failure),
  }));
  for (const { failure, reason } of excused.filter((item) => item.reason))
    console.log(`not the spec's fault: ${failure.title} on ${failure.operation} (${reason})`);
  assert.deepEqual(
    excused
      .filter((item) => !item.reason)
      .map(
        ({ failure }) =>
          `${failure.title} on ${failure.operation}: [${failure.status}] ${failure.body} ${failure.curl}`,
      ),
    [],
    'every other Schemathesis failure is a defect of the spec (or of the reference server)',
  );
  assert.ok(!run.output.includes(server.keys.full), 'the key appears in no output of the peer');
});
