// The generative phase of `kgate conform`: each operation's share of the run's generated requests,
// sent once per worker (all intents at once, so that slow answers overlap), and reported by the
// three generative checks' tests, each taking the findings of the cases of its intent.
import { type FrontLimits, mergeFrontLimits, noFrontLimits } from '../../http/front-limits.ts';
import { mergeObservations, noObservations, type Observations } from '../../http/observations.ts';
import { OPERATION_IDS } from '../../openapi/spec.ts';
import { Api, requestsSent, TargetBroken } from '../api.ts';
import type { CheckContext } from '../checks/registry.ts';
import { findingKey } from '../failure.ts';
import { PROPERTY_CHECKS } from '../properties/index.ts';
import { toleranceNote } from '../properties/tolerance.ts';
import { mergeTimings, type OperationTimings } from '../timings.ts';
import { allocate, casesFor, type Intent } from './cases.ts';
import { type EngineResult, GenerativeEngine } from './engine.ts';
import { GENERATIVE_CHECKS } from './judge.ts';
import { poolsFor } from './pools.ts';

/** Requests in flight at once for one operation: slow answers overlap instead of adding up. */
const CONCURRENCY = 16;
/** Most requests spent shrinking one finding in the gate. */
const SHRINK_ATTEMPTS = 30;
/** Longest time spent shrinking one finding in the gate: a target that answers slowly keeps its findings less shrunk, not the gate waiting. */
const SHRINK_MS = 1_000;

/**
 * Relations and chains started per operation and relation in the gate, from the valid requests
 * that rank highest for each (about 70 requests over the 13 operations).
 */
export const GATE_RELATIONS_PER_OPERATION = 3;

/** Which cases each generative check's test reports: its own intent. */
export const INTENT_OF_CHECK: Record<string, Intent> = {
  [GENERATIVE_CHECKS.positiveAccepted]: 'positive',
  [GENERATIVE_CHECKS.negativeRejected]: 'negative',
  [GENERATIVE_CHECKS.noServerError]: 'edge',
};

/** What one operation's generated requests found, and what sending them cost. */
interface Sent {
  result: EngineResult;
  count: number;
  /** HTTP requests the engine sent (cases, chains and shrinking). */
  requests: number;
  /** The same requests per operation, with their latencies. */
  timings: OperationTimings;
  /** Requests a front server refused for their size, those that got through, inputs resent as POST. */
  front: FrontLimits;
  /** What the answers said of the envelope (versions, servers, throttling). */
  observed: Observations;
  /** Set by the test that counts `requests` as its own, so the run counts them once. */
  counted: boolean;
}

/** Sends the operation's generated cases of the intents the run judges, once per worker. */
function sendOnce(ctx: CheckContext): Promise<Sent> {
  const { cases: total, seed, checks } = ctx.generate;
  const intents = new Set(checks.map((id) => INTENT_OF_CHECK[id]));
  // The properties judge the valid requests whether or not positive-input-accepted is selected.
  if (ctx.generate.properties.some((id) => PROPERTY_CHECKS.has(id))) intents.add('positive');
  const settings = ctx.api.settings;
  const key = `generate ${settings.baseUrl} ${ctx.op.operationId} ${total} ${seed} ${[...intents].sort().join(',')}`;
  return ctx.shared(key, async () => {
    const count = allocate(total, OPERATION_IDS).get(ctx.op.operationId) ?? 0;
    const pools = await poolsFor(ctx.op.operationId, ctx.data);
    const cases = casesFor(seed, ctx.op.operationId, count, pools).filter((c) => intents.has(c.intent));
    const apis: Api[] = [];
    const engine = new GenerativeEngine({
      newApi: (judge = true) => {
        // The engine judges its cases by the properties itself; its chain and relation reads are the relations'.
        const api = new Api({ ...settings, judge, propertyChecks: undefined });
        apis.push(api);
        return api;
      },
      concurrency: CONCURRENCY,
      shrinkAttempts: SHRINK_ATTEMPTS,
      shrinkMs: SHRINK_MS,
      disabledChecks: settings.disabledChecks,
      propertyChecks: new Set(ctx.generate.properties),
      relationsPerOperation: GATE_RELATIONS_PER_OPERATION,
      strict: settings.strict,
    });
    const result = await engine.run(cases);
    const timings = apis.reduce<OperationTimings>((sum, api) => mergeTimings(sum, api.timings), {});
    const front = apis.reduce<FrontLimits>((all, api) => mergeFrontLimits(all, api.front), noFrontLimits());
    const observed = apis.reduce((all, api) => mergeObservations(all, api.observed), noObservations());
    return { result, count, requests: requestsSent(apis), timings, front, observed, counted: false };
  });
}

/** The body of a generative check's test: reports what the operation's cases of its intent found. */
export function generativeTest(intent: Intent): (ctx: CheckContext) => Promise<void> {
  const own = Object.keys(INTENT_OF_CHECK).find((id) => INTENT_OF_CHECK[id] === intent)!;
  return async (ctx) => {
    // Not selected itself, the test runs only to send and report what the properties found.
    const carrier = !ctx.generate.checks.includes(own);
    if (carrier) ctx.carry();
    const sent = await ctx.step(`generated requests (seed ${ctx.generate.seed})`, () => sendOnce(ctx));
    const { result, count } = sent;
    // The first of the operation's generative tests counts the requests, so the run counts them once.
    if (!sent.counted) {
      sent.counted = true;
      ctx.api.requestCount += sent.requests;
      mergeTimings(ctx.api.timings, sent.timings);
      mergeFrontLimits(ctx.api.front, sent.front);
      mergeObservations(ctx.api.observed, sent.observed);
    }
    for (const id of result.reads) ctx.api.reads.add(id);
    if (intent === 'positive')
      for (const [operation, tolerance] of Object.entries(result.tolerances))
        ctx.note(toleranceNote(operation, { tolerance }));
    if (intent === 'positive') for (const key of result.judged) ctx.api.judged.add(key);
    if (result.cases[intent] === 0 && result.stopped.length === 0) {
      ctx.skip(`no ${intent} case among the ${count} generated for this operation (--generate ${ctx.generate.cases})`);
    }
    for (const finding of result.findings) {
      if (result.intents[findingKey(finding)] === intent && !(carrier && finding.check === own)) ctx.report(finding);
    }
    // Cases kgate stopped sending (the operation was given up on, or the target stopped answering)
    // were not judged: runCheck reports the test as not run when its operation was given up on.
    if (result.notSent > 0 && result.stopped.length > 0) throw new TargetBroken(result.stopped[0]!);
  };
}
