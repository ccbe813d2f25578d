import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  BudgetTooSmall,
  budgetText,
  DURATION_MARGIN_S,
  DURATION_SHARE,
  type ItemHistory,
  isBudgeted,
  itemsOf,
  PREFLIGHT_REQUESTS,
  pacedSecondsOf,
  planRun,
  RUN_OVERHEAD_S,
} from './budget.ts';
import { readConformOptions } from './options.ts';
import { referenceRefused, revealingItems } from './plan.ts';
import { SENTINEL_CHECKS, SENTINEL_RUNS } from './rotation.ts';
import { selectedTests } from './selection.ts';

/** A run against a deployment: no rate-limit bursts. */
const selected = selectedTests({ ...readConformOptions('{}', true), rateLimit: false, embedded: false });
/** The real service's published limits (facts.md): interpret about 3/s, evaluate 1/s, calchistogram 6/min. */
const PUBLISHED = {
  maxRps: 3,
  maxRpsByPath: {
    '/academic/v1.0/interpret': 3,
    '/academic/v1.0/evaluate': 1,
    '/academic/v1.0/calchistogram': 0.1,
  },
};

test('a plan is budgeted by a request budget, or by a time budget a pace can price', () => {
  const cases = [
    { given: {}, want: false },
    { given: { maxRps: 1 }, want: false },
    { given: { maxDurationMs: 600_000 }, want: false },
    { given: { maxDurationMs: 600_000, maxRps: 1 }, want: true },
    { given: { maxDurationMs: 600_000, maxRpsByPath: { '/academic/v1.0/evaluate': 1 } }, want: true },
    { given: { maxRequests: 300 }, want: true },
  ];
  for (const { given, want } of cases) assert.equal(isBudgeted(given), want, JSON.stringify(given));
});

test('the paces price requests by path: the slowest path, or the run pace over all', () => {
  const cases: {
    given: { byPath: Record<string, number>; limits: Parameters<typeof pacedSecondsOf>[1] };
    want: number;
  }[] = [
    { given: { byPath: { '/a': 10 }, limits: {} }, want: 0 },
    { given: { byPath: { '/a': 10, '/b': 20 }, limits: { maxRps: 2 } }, want: 15 },
    { given: { byPath: { '/a': 10, '/b': 20 }, limits: { maxRps: 100, maxRpsByPath: { '/a': 0.5 } } }, want: 20 },
  ];
  for (const { given, want } of cases)
    assert.equal(pacedSecondsOf(given.byPath, given.limits), want, JSON.stringify(given));
});

test('at the published limits a 10 minute budget fills the slowest path, which starts first, and says how many runs a cycle takes', () => {
  const limits = { ...PUBLISHED, maxDurationMs: 600_000 };
  const plan = planRun({
    selected,
    limits,
    seed: 1,
    revealing: revealingItems(),
    refused: referenceRefused(),
    cycle: true,
  });
  const room = 600 * DURATION_SHARE - RUN_OVERHEAD_S - DURATION_MARGIN_S;
  const calchistogram = plan.estimate.byPath['/academic/v1.0/calchistogram'] ?? 0;
  assert.ok(calchistogram <= room * 0.1, `calchistogram requests ${calchistogram} fit ${room} s at 6/min`);
  assert.ok(calchistogram >= room * 0.1 - 3, `and fill them: ${calchistogram}`);
  assert.ok((plan.estimate.byPath['/academic/v1.0/evaluate'] ?? 0) <= room, 'evaluate fits at 1/s');
  assert.ok(plan.estimate.seconds <= 600, `announced ${plan.estimate.seconds} s within the budget`);
  assert.ok(plan.notPlanned.length > 0, 'some items wait for a later run');
  assert.equal(
    plan.order?.[0]?.startsWith('calchistogram'),
    true,
    `the slowest path's operation starts first: ${plan.order}`,
  );
  assert.ok(plan.order?.at(-1)?.startsWith('calchistogram'), 'its twin after every other operation');
  assert.ok((plan.cycle ?? 0) >= 2, `a cycle of runs judges what one run cannot: ${plan.cycle}`);
});

test('a request budget is held from a few dozen up: the plan, test data and the key preflight fit it, a larger one judges more', () => {
  let before = 0;
  for (const maxRequests of [30, 60, 100, 200, 400]) {
    const plan = planRun({ selected, limits: { maxRequests }, seed: 1, revealing: revealingItems() });
    assert.ok(
      plan.estimate.requests - 1 + PREFLIGHT_REQUESTS <= maxRequests,
      `${plan.estimate.requests} planned within ${maxRequests}, the preflight's most included`,
    );
    assert.ok(plan.planned > before, `${maxRequests} judges more than a smaller budget: ${plan.planned}`);
    assert.equal(plan.planned + plan.notPlanned.length, SELECTION.length, 'judged and not judged make the whole');
    before = plan.planned;
  }
});

test('only a budget too small for one judged answer is refused, naming the smallest that would hold one', () => {
  const cases = [
    { limits: { maxRequests: 4 }, want: /would: --max-requests (\d+)/ },
    { limits: { ...PUBLISHED, maxDurationMs: 10_000 }, want: /would: --max-duration (\d+)s/ },
  ];
  for (const { limits, want } of cases) {
    let refused: BudgetTooSmall | undefined;
    try {
      planRun({ selected, limits, seed: 1 });
    } catch (error) {
      if (error instanceof BudgetTooSmall) refused = error;
      else throw error;
    }
    assert.ok(refused, `${JSON.stringify(limits)} is refused`);
    assert.match(refused.message, /cannot hold one judged answer/);
    const smallest = Number(want.exec(refused.message)?.[1]);
    assert.ok(smallest > 0, refused.message);
    // The smallest budget named holds one: a plan at it is made, judging something.
    const enough = 'maxRequests' in limits ? { maxRequests: smallest } : { ...limits, maxDurationMs: smallest * 1000 };
    assert.ok(planRun({ selected, limits: enough, seed: 1 }).planned > 0, `${JSON.stringify(enough)} holds one`);
    const less =
      'maxRequests' in limits ? { maxRequests: smallest - 1 } : { ...limits, maxDurationMs: (smallest - 2) * 1000 };
    assert.throws(() => planRun({ selected, limits: less, seed: 1 }), BudgetTooSmall, 'and nothing less');
  }
  assert.ok(
    planRun({ selected, limits: { maxRequests: 60 }, seed: 1 }).cells!.some((cell) => cell.endsWith(':auth-required')),
    '60 requests hold cells only their own tests judge',
  );
});

/** Ledger runs of plans at a budget, each judging what its plan holds: the runs until every item was judged, and what they sent. */
function series(maxRequests: number, runs: number, fail?: { run: number; item: string }) {
  const history = new Map<string, ItemHistory>();
  const seen = new Set<string>();
  const plans = [];
  for (let run = 1; run <= runs; run++) {
    const plan = planRun({
      selected,
      limits: { maxRequests },
      seed: 1,
      revealing: revealingItems(),
      refused: referenceRefused(),
      history,
    });
    plans.push(plan);
    for (const entry of history.values()) if (entry.runsAgo !== undefined) entry.runsAgo++;
    const left = new Set(plan.notPlanned);
    for (const item of SELECTION) {
      if (left.has(item)) continue;
      history.set(item, { runsAgo: 0, ...(fail?.run === run && fail.item === item ? { failed: true } : {}) });
      seen.add(item);
    }
    if (seen.size === SELECTION.length && !fail) break;
  }
  return { plans, seen };
}

/** The items of the selection, as the reports count them. */
const SELECTION = itemsOf(selected);

test('a ledger at --max-requests 100 judges every item within 9 runs, sending at most 1.4x one unbudgeted run', () => {
  const whole = planRun({ selected, limits: {}, seed: 1 });
  const first = planRun({ selected, limits: { maxRequests: 100 }, seed: 1, revealing: revealingItems(), cycle: true });
  const items = first.planned + first.notPlanned.length;
  assert.equal(items, SELECTION.length, 'the plan counts the items of the selection');
  assert.equal(whole.planned, SELECTION.length, 'an unbudgeted plan judges every one');
  const { plans, seen } = series(100, 12);
  assert.equal(seen.size, items, `every item judged: ${seen.size} of ${items}`);
  assert.ok(plans.length <= 9, `within 9 runs: ${plans.length}`);
  const sent = plans.reduce((sum, plan) => sum + plan.estimate.requests, 0);
  assert.ok(
    sent <= 1.4 * whole.estimate.requests,
    `${sent} requests, ${(sent / whole.estimate.requests).toFixed(2)}x one unbudgeted run`,
  );
  assert.ok(
    Math.abs((first.cycle ?? 0) - plans.length) <= 1,
    `the plan says a cycle takes about ${first.cycle} runs; it took ${plans.length}`,
  );
  // Each API group's auth and error cells within every SENTINEL_RUNS runs in a row.
  for (const [group, prefix] of [
    ['academic', /^cell:(interpret|evaluate|calchistogram|similarity)/],
    ['answer search', /^cell:answerSearch/],
    ['URL preview', /^cell:urlPreview/],
    ['event knowledge', /^cell:(hotEvents|relatedEvents|eventDocuments)/],
  ] as const)
    for (const check of SENTINEL_CHECKS) {
      const judged = plans.map((plan) => plan.cells!.some((cell) => prefix.test(cell) && cell.endsWith(`:${check}`)));
      for (let run = 0; run + SENTINEL_RUNS <= judged.length; run++)
        assert.ok(
          judged.slice(run, run + SENTINEL_RUNS).some(Boolean),
          `${group}'s ${check} judged within runs ${run + 1} to ${run + SENTINEL_RUNS}: ${judged.join(' ')}`,
        );
    }
});

test('a sample of other budgets reaches every item within the cycle its first plan announces', () => {
  for (const maxRequests of [60, 200]) {
    const first = planRun({ selected, limits: { maxRequests }, seed: 1, revealing: revealingItems(), cycle: true });
    const { plans, seen } = series(maxRequests, (first.cycle ?? 0) + 2);
    assert.equal(seen.size, first.planned + first.notPlanned.length, `${maxRequests}: every item judged`);
    assert.ok(
      plans.length <= (first.cycle ?? 0) + 1,
      `${maxRequests}: announced about ${first.cycle} runs, took ${plans.length}`,
    );
  }
});

test('an item that failed is judged again on the next run, where it would otherwise wait', () => {
  const plain = series(60, 2).plans;
  const waiting = SELECTION.filter(
    (item) => item.startsWith('input:') && !plain[0]!.notPlanned.includes(item) && plain[1]!.notPlanned.includes(item),
  );
  assert.ok(waiting.length > 0, 'some items judged in run 1 wait in run 2');
  for (const item of waiting.slice(0, 3)) {
    const { plans } = series(60, 2, { run: 1, item });
    assert.ok(!plans[1]!.notPlanned.includes(item), `${item}: the run after its failure judges it again`);
  }
});

test('keys not given cost nothing: their cells are left to their tests, which skip themselves', () => {
  const keys = { unsubscribed: false, exhausted: false };
  const plan = planRun({ selected, limits: { maxRequests: 400 }, seed: 1, keys });
  assert.deepEqual(
    Object.keys(plan.estimate.perKey ?? {}).filter((key) => key.startsWith('KGATE_KEY_')),
    [],
    `no request counted for a key not given: ${JSON.stringify(plan.estimate.perKey)}`,
  );
  assert.ok(
    plan.cells!.some((cell) => cell.endsWith(':auth-requires-subscription')),
    'its test still runs, and skips',
  );
});

test('the budget reads as given', () => {
  assert.equal(
    budgetText({ ...PUBLISHED, maxDurationMs: 600_000, maxRequests: 300 }),
    '--max-duration 10 min, --max-requests 300 at --max-rps 3, /academic/v1.0/interpret 3/s, /academic/v1.0/evaluate 1/s, /academic/v1.0/calchistogram 0.1/s',
  );
});
