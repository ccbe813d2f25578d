import type { Operation } from '../contracts/api.ts';
import { CHECKS } from '../contracts/checks/index.ts';
import { OPERATIONS } from '../openapi/spec.ts';
import { declareTests } from './declare-tests.ts';
import { test } from './fixtures.ts';
import { readConformOptions } from './options.ts';
import { planOrder, plansCoverage } from './plan.ts';

// One describe per operation of the spec, one test per check that applies to it; the request
// fixture validates every response, so checks only state the semantics the schema cannot. The
// generative checks' tests exist only when the run has a generative phase (--generate N, N > 0).
// The rate-limit tests (tagged) burst the operations the interface rate-limits (answer search, URL
// preview): those operations' tests are declared first, then the rate-limit tests in one group
// (describes of the same titles), then every other operation. Playwright hands tests to its
// workers in the order they are declared: one worker bursts and waits for recovery, once the
// rate-limited operations' other tests have ended, while the others go on with operations the
// rate limit does not cover.
const generate = readConformOptions().generate > 0;
const planned = plansCoverage(readConformOptions());
const applies = (op: Operation) =>
  CHECKS.filter((check) => check.run && check.appliesTo(op) && (check.kind !== 'generative' || generate));
const tagged = (op: Operation) => applies(op).filter((check) => check.tag);
const limited = OPERATIONS.filter((op) => tagged(op).length > 0);
const declareOperation = (op: Operation) =>
  test.describe(op.label, () => {
    // An operation's tests run in order in one worker, one test group (see fault-sweep.spec.ts):
    // Playwright's worker binds the file's tests for every group it is handed, and each group is a
    // round trip to the runner. The bench measured the same wall time as with one group per test.
    test.describe.configure({ mode: 'default' });
    declareTests(
      op,
      applies(op).filter((check) => !check.tag),
      planned,
    );
  });
// A budgeted plan starts the operations whose paced requests take longest first (run/budget.ts):
// the slowest path's requests go from the start, the other operations side by side.
const order = planOrder(readConformOptions());
const operations = order
  ? [...OPERATIONS].sort((a, b) => order.indexOf(a.operationId) - order.indexOf(b.operationId))
  : OPERATIONS;
for (const op of limited) declareOperation(op);
if (limited.length > 0)
  test.describe(() => {
    // One group: one worker runs the bursts one after the other, so no burst meets another's 429s.
    test.describe.configure({ mode: 'default' });
    for (const op of limited) test.describe(op.label, () => declareTests(op, tagged(op)));
  });
for (const op of operations) if (!limited.includes(op)) declareOperation(op);
