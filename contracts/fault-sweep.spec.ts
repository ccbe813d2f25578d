import { OPERATIONS } from '../openapi/spec.ts';
import { CHECKS } from './checks/index.ts';
import { declareTests } from './declare-tests.ts';
import { test } from './fixtures.ts';
import { readConformOptions } from './options.ts';

// The fault sweep (contracts/fault-sweep.ts): one describe per target (the clean server, or each
// fault), each holding one describe per operation with the tests selected for it. All targets
// share one worker pool; discovered data is cached per target inside each worker.
// A target's tests run in order in one worker (mode 'default': one test group per target, a failed
// test does not skip the rest). Playwright's worker binds and filters the whole file's tests for
// every group it is handed, so one group per test made the sweep's thousands of tests quadratic;
// one group per target also finds each target's test data once, not once per worker.
for (const target of readConformOptions().sweep ?? []) {
  test.describe(target.name, () => {
    test.describe.configure({ mode: 'default' });
    test.use({ kgateTarget: { baseUrl: target.baseUrl, timeoutMs: target.timeoutMs } });
    const selected = target.tests ? new Set(target.tests) : undefined;
    for (const op of OPERATIONS) {
      const checks = CHECKS.filter(
        (check) =>
          check.run &&
          check.appliesTo(op) &&
          (!check.tag || target.rateLimit) &&
          (check.kind !== 'generative' || target.generate !== false) &&
          (!selected || selected.has(`${op.label} ${check.id}`)),
      );
      if (checks.length === 0) continue;
      test.describe(op.label, () => declareTests(op, checks));
    }
  });
}
