import type { Operation } from '../contracts/api.ts';
import type { Check } from '../contracts/checks/registry.ts';
import { runCheck, test } from './fixtures.ts';

/**
 * Declares one test per check on `op`, inside the current describe (titled with the operation
 * label). The generative checks' tests go into an untitled serial group: one worker runs them one
 * after the other, so the operation's generated requests are sent once and each test reports the
 * findings of its own intent.
 */
export function declareTests(op: Operation, checks: readonly Check[], generativeFirst = false): void {
  const declare = (check: Check) =>
    test(check.id, { tag: check.tag ? [check.tag] : [] }, async ({ api, data, kgate }, testInfo) => {
      await runCheck(check, op, { api, data, kgate }, testInfo);
    });
  const generative = checks.filter((check) => check.kind === 'generative');
  const declareGenerative = () =>
    test.describe(() => {
      test.describe.configure({ mode: 'serial' });
      for (const check of generative) declare(check);
    });
  // A planned run sends the generated requests first: the fixed tests whose cells their answers
  // judged then send nothing (run/plan.ts, DEFERRED_CHECKS).
  if (generativeFirst && generative.length > 0) declareGenerative();
  for (const check of checks) if (check.kind !== 'generative') declare(check);
  if (!generativeFirst && generative.length > 0) declareGenerative();
}
