import { OPERATIONS } from '../openapi/spec.ts';
import type { Operation } from './api.ts';
import { CHECKS } from './checks/index.ts';
import { declareTests } from './declare-tests.ts';
import { test } from './fixtures.ts';
import { readConformOptions } from './options.ts';

// One describe per operation of the spec, one test per check that applies to it; the request
// fixture validates every response, so checks only state the semantics the schema cannot. The
// generative checks' tests exist only when the run has a generative phase (--generate N, N > 0).
// The rate-limit tests (tagged) are declared after all others, in describes of the same titles:
// Playwright hands tests to its workers in the order they are declared, so they start last.
const generate = readConformOptions().generate > 0;
const applies = (op: Operation) =>
  CHECKS.filter((check) => check.run && check.appliesTo(op) && (check.kind !== 'generative' || generate));
for (const op of OPERATIONS) {
  test.describe(op.label, () => {
    // An operation's tests run in order in one worker, one test group (see fault-sweep.spec.ts):
    // Playwright's worker binds the file's tests for every group it is handed, and each group is a
    // round trip to the runner. The bench measured the same wall time as with one group per test.
    test.describe.configure({ mode: 'default' });
    declareTests(
      op,
      applies(op).filter((check) => !check.tag),
    );
  });
}
for (const op of OPERATIONS) {
  const tagged = applies(op).filter((check) => check.tag);
  if (tagged.length > 0) test.describe(op.label, () => declareTests(op, tagged));
}
