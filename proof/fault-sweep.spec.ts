import { CHECKS } from '../contracts/checks/index.ts';
import { OPERATIONS } from '../openapi/spec.ts';
import { declareTests } from '../run/declare-tests.ts';
import { test } from '../run/fixtures.ts';
import { readConformOptions } from '../run/options.ts';
import { plansCoverage } from '../run/plan.ts';

// The fault sweep (proof/fault-sweep.ts): one describe per target (the clean server, or each
// fault), each holding one describe per operation with the tests selected for it. All targets
// share one worker pool; discovered data is cached per target inside each worker.
// Test groups (mode 'default': in order, in one worker; a failed test does not skip the rest): a
// target whose tests span every operation (the clean run, the yardstick of every fault's estimated
// time; hostile faults; the real profile) runs as the gate does, one group per operation
// (operations.spec.ts); a fault of a few operations, one group. Playwright's worker binds and
// filters the whole file's tests for every group it is handed, so one group per test, Playwright's
// default in a fully parallel run, made the sweep's thousands of tests quadratic.
const options = readConformOptions();
for (const target of options.sweep ?? []) {
  const selected = target.tests ? new Set(target.tests) : undefined;
  const declared = OPERATIONS.map((op) => ({
    op,
    checks: CHECKS.filter(
      (check) =>
        check.run &&
        check.appliesTo(op) &&
        (!check.tag || target.rateLimit) &&
        (check.kind !== 'generative' || target.generate !== false) &&
        (!selected || selected.has(`${op.label} ${check.id}`)),
    ),
  })).filter(({ checks }) => checks.length > 0);
  const everyOperation = declared.length === OPERATIONS.length;
  test.describe(target.name, () => {
    if (!everyOperation) test.describe.configure({ mode: 'default' });
    // Each target its own breaker: a fault judged without its generative phase must not learn that
    // the run with it gave an operation up.
    test.use({ kgateTarget: { baseUrl: target.baseUrl, timeoutMs: target.timeoutMs, breakerScope: target.name } });
    for (const { op, checks } of declared) {
      test.describe(op.label, () => {
        if (everyOperation) test.describe.configure({ mode: 'default' });
        declareTests(op, checks, plansCoverage(options) && target.generate !== false);
      });
    }
  });
}
