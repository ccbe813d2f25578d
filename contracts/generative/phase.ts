// The generative phase of `kgate conform`: for each operation, its share of the run's generated
// requests, split by intent between the three generative checks' tests (each sends its own).
import { OPERATION_IDS } from '../../openapi/spec.ts';
import { Api } from '../api.ts';
import type { CheckContext } from '../checks/registry.ts';
import { allocate, casesFor, type Intent } from './cases.ts';
import { GenerativeEngine } from './engine.ts';
import { poolsFor } from './pools.ts';

/** Requests in flight at once in one test of the phase (two workers run such tests side by side). */
const CONCURRENCY = 4;
/** Most requests spent shrinking one finding in the gate. */
const SHRINK_ATTEMPTS = 30;

/** The body of a generative check's test: sends this operation's cases of one intent and reports what they find. */
export function generativeTest(intent: Intent): (ctx: CheckContext) => Promise<void> {
  return async (ctx) => {
    const { cases: total, seed } = ctx.generate;
    const count = allocate(total, OPERATION_IDS).get(ctx.op.operationId) ?? 0;
    const pools = await poolsFor(ctx.op.operationId, ctx.data);
    const cases = casesFor(seed, ctx.op.operationId, count, pools).filter((c) => c.intent === intent);
    if (cases.length === 0) {
      ctx.skip(`no ${intent} case among the ${count} generated for this operation (--generate ${total})`);
    }
    const settings = ctx.api.settings;
    const engine = new GenerativeEngine({
      newApi: (judge = true) => new Api({ ...settings, judge }),
      concurrency: CONCURRENCY,
      shrinkAttempts: SHRINK_ATTEMPTS,
      disabledChecks: settings.disabledChecks,
    });
    const result = await ctx.step(`${cases.length} generated ${intent} requests (seed ${seed})`, () =>
      engine.run(cases),
    );
    for (const id of result.reads) ctx.api.reads.add(id);
    for (const finding of result.findings) ctx.report(finding);
    const sent = result.cases.positive + result.cases.negative + result.cases.edge;
    if (sent === 0) ctx.skip(result.stopped[0] ?? 'no generated request could be sent');
  };
}
