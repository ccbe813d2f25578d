// The generative phase of `kgate conform`: each operation's share of the run's generated requests,
// sent once per worker (all intents at once, so that slow answers overlap), and reported by the
// three generative checks' tests, each taking the findings of the cases of its intent.
import { type FrontLimits, mergeFrontLimits, noFrontLimits } from '../../http/front-limits.ts';
import { mergeObservations, noObservations, type Observations } from '../../http/observations.ts';
import { OPERATION_IDS } from '../../openapi/spec.ts';
import { Api, requestsSent, TargetBroken } from '../api.ts';
import type { CheckContext } from '../checks/registry.ts';
import { planCases } from '../coverage/plan.ts';
import { type Failure, findingKey } from '../failure.ts';
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
 * Relations and chains started per operation and relation in a draw (`--generate N`), from the valid
 * requests that rank highest for each (about 70 requests over the 13 operations).
 */
export const GATE_RELATIONS_PER_OPERATION = 3;
/** The same in a planned run: one per operation and relation judges its cell; the ranking picks the most telling. */
export const PLAN_RELATIONS_PER_OPERATION = 1;

/**
 * The key under which a worker keeps what its generated requests judged on a target (the sweep
 * judges one fault with and without the generative phase: each its own breaker scope).
 */
export function judgedKeyOf(settings: { baseUrl: string; breakerScope?: string }): string {
  return `judged-by-generated ${settings.breakerScope ?? ''} ${settings.baseUrl}`;
}

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
  /** Planned items no case of the generator carries on this target. */
  uncovered: string[];
  /** What reading the target's values found wrong with it (a reset, a hang), reported once. */
  discovered: Failure[];
}

/** Sends the operation's generated cases of the intents the run judges, once per worker. */
function sendOnce(ctx: CheckContext): Promise<Sent> {
  const { cases: total, seed, checks } = ctx.generate;
  const intents = new Set(checks.map((id) => INTENT_OF_CHECK[id]));
  // The properties judge the valid requests whether or not positive-input-accepted is selected.
  if (ctx.generate.properties.some((id) => PROPERTY_CHECKS.has(id))) intents.add('positive');
  const settings = ctx.api.settings;
  const targets = ctx.generate.targets;
  const key = `generate ${settings.baseUrl} ${ctx.op.operationId} ${total} ${seed} ${[...intents].sort().join(',')} ${targets ? targets.length : 'draw'}`;
  return ctx.shared(key, async () => {
    const discovered: Failure[] = [];
    const pools = await poolsFor(ctx.op.operationId, ctx.data, discovered);
    // A planned run sends the cases that carry its items (packed); a draw, the first cases of its rounds.
    const planned = targets
      ? planCases(seed, ctx.op.operationId, targets, pools, undefined, ctx.generate.refused)
      : undefined;
    const count = planned ? planned.cases.length : (allocate(total, OPERATION_IDS).get(ctx.op.operationId) ?? 0);
    const cases = (planned ? planned.cases : casesFor(seed, ctx.op.operationId, count, pools)).filter((c) =>
      intents.has(c.intent),
    );
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
      relationsOff: new Set(ctx.generate.relationsOff ?? []),
      relationsPerOperation: planned ? PLAN_RELATIONS_PER_OPERATION : GATE_RELATIONS_PER_OPERATION,
      strict: settings.strict,
      ...(ctx.generate.target ? { target: ctx.generate.target } : {}),
    });
    const result = await engine.run(cases);
    const timings = apis.reduce<OperationTimings>((sum, api) => mergeTimings(sum, api.timings), {});
    const front = apis.reduce<FrontLimits>((all, api) => mergeFrontLimits(all, api.front), noFrontLimits());
    const observed = apis.reduce((all, api) => mergeObservations(all, api.observed), noObservations());
    // What the generated answers judged, for the operation's other tests in this worker (a fixed test
    // whose cell they judged sends nothing of its own: see run/fixtures.ts).
    const judged = await ctx.shared(judgedKeyOf(settings), async () => new Set<string>());
    for (const entry of result.judged) judged.add(entry);
    // A valid generated request answered judges what response-matches-spec's own test asks: a 2xx, as the spec says.
    if (result.cases.positive > 0) judged.add(`response-matches-spec ${ctx.op.label}`);
    return {
      result,
      count,
      requests: requestsSent(apis),
      timings,
      front,
      observed,
      counted: false,
      uncovered: planned?.uncovered ?? [],
      discovered,
    };
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
      for (const item of result.items) ctx.api.judgedItems.add(item);
      for (const item of result.refused) ctx.api.refusedItems.add(item);
      Object.assign(ctx.api.judgedBy, result.judgedBy);
      for (const finding of sent.discovered) ctx.report(finding);
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
