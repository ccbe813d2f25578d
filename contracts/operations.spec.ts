import { OPERATIONS } from '../openapi/spec.ts';
import { CHECKS } from './checks/index.ts';
import { declareTests } from './declare-tests.ts';
import { test } from './fixtures.ts';
import { readConformOptions } from './options.ts';

// One describe per operation of the spec, one test per check that applies to it; the request
// fixture validates every response, so checks only state the semantics the schema cannot. The
// generative checks' tests exist only when the run has a generative phase (--generate N, N > 0).
const generate = readConformOptions().generate > 0;
for (const op of OPERATIONS) {
  test.describe(op.label, () => {
    declareTests(
      op,
      CHECKS.filter((check) => check.run && check.appliesTo(op) && (check.kind !== 'generative' || generate)),
    );
  });
}
