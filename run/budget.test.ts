import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  BudgetTooSmall,
  budgetText,
  DURATION_MARGIN_S,
  DURATION_SHARE,
  isBudgeted,
  pacedSecondsOf,
  planRun,
  priorityOrder,
  RUN_OVERHEAD_S,
} from './budget.ts';
import { readConformOptions } from './options.ts';
import { referenceRefused, revealingItems } from './plan.ts';
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

test('at the published limits a 10 minute budget holds every cell, the slowest path filling the time and started first', () => {
  const limits = { ...PUBLISHED, maxDurationMs: 600_000 };
  const plan = planRun({ selected, limits, seed: 1 });
  const room = 600 * DURATION_SHARE - RUN_OVERHEAD_S - DURATION_MARGIN_S;
  const calchistogram = plan.estimate.byPath['/academic/v1.0/calchistogram'] ?? 0;
  assert.ok(calchistogram <= room * 0.1, `calchistogram requests ${calchistogram} fit ${room} s at 6/min`);
  assert.ok(calchistogram >= room * 0.1 - 3, `and fill them: ${calchistogram}`);
  assert.ok((plan.estimate.byPath['/academic/v1.0/evaluate'] ?? 0) <= room, 'evaluate fits at 1/s');
  assert.ok(plan.estimate.seconds <= 600, `announced ${plan.estimate.seconds} s within the budget`);
  // The cells only their own tests judge take 27 of calchistogram's 55 slots. Ranked by what the
  // fault catalogue measured (as kgate conform plans), what is left holds every other cell; without
  // the ranking only cells of the slowest path may wait, and an 11-minute budget holds them all.
  const ranked = planRun({ selected, limits, seed: 1, revealing: revealingItems(), refused: referenceRefused() });
  assert.equal(ranked.cells?.length, selected.length, 'ranked, every cell of the selection is judged');
  const cellsLeft = plan.notPlanned.filter((item) => item.startsWith('cell:'));
  assert.ok(
    cellsLeft.every((item) => item.startsWith('cell:calchistogram')),
    `only the slowest path's cells wait: ${cellsLeft.join(' ')}`,
  );
  assert.equal(plan.cells!.length + cellsLeft.length, selected.length, 'every other cell of the selection is judged');
  const longer = planRun({ selected, limits: { ...PUBLISHED, maxDurationMs: 660_000 }, seed: 1 });
  assert.equal(longer.cells?.length, selected.length, 'an 11-minute budget judges every cell');
  assert.ok(plan.notPlanned.length > 0, 'some input items of calchistogram wait for a later run');
  assert.ok(
    plan.notPlanned.every((item) => item.includes(':calchistogram')),
    `only the slowest path's items are left out: ${plan.notPlanned.filter((item) => !item.includes(':calchistogram')).join(' ')}`,
  );
  assert.equal(
    plan.order?.[0]?.startsWith('calchistogram'),
    true,
    `the slowest path's operation starts first: ${plan.order}`,
  );
  assert.ok(plan.order?.at(-1)?.startsWith('calchistogram'), 'its twin after every other operation');
  assert.ok((plan.window ?? 0) >= 2, `a window of runs judges what one run cannot: ${plan.window}`);
});

test('a request budget is held: the plan, test data and the key preflight fit it, the cells first', () => {
  for (const maxRequests of [200, 350, 600]) {
    const plan = planRun({ selected, limits: { maxRequests }, seed: 1 });
    assert.ok(plan.estimate.requests <= maxRequests, `${plan.estimate.requests} planned within ${maxRequests}`);
    if (maxRequests >= 350) assert.equal(plan.cells?.length, selected.length, `${maxRequests}: every cell first`);
    else
      assert.ok(
        plan.notPlanned.some((item) => item.startsWith('cell:')),
        `${maxRequests}: not every cell fits`,
      );
  }
  const small = planRun({ selected, limits: { maxRequests: 200 }, seed: 1 });
  const large = planRun({ selected, limits: { maxRequests: 600 }, seed: 1 });
  assert.ok(small.planned < large.planned, 'a larger budget judges more items');
  assert.ok(large.notPlanned.length < small.notPlanned.length);
  assert.deepEqual(
    [...new Set(large.notPlanned)].filter((item) => !small.notPlanned.includes(item)),
    [],
    'what a larger budget leaves out, a smaller one leaves out too',
  );
});

test('a budget that cannot hold the cells only their own tests judge is refused, naming the smallest that would', () => {
  const cases = [
    { limits: { maxRequests: 50 }, want: /would: --max-requests (\d+)/ },
    { limits: { ...PUBLISHED, maxDurationMs: 60_000 }, want: /would: --max-duration (\d+)s/ },
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
    assert.match(refused.message, /auth-required/, 'it names the cells that need it');
    const smallest = Number(want.exec(refused.message)?.[1]);
    assert.ok(smallest > 0, refused.message);
    // The smallest budget named holds them: a plan at it is made.
    const enough = 'maxRequests' in limits ? { maxRequests: smallest } : { ...limits, maxDurationMs: smallest * 1000 };
    assert.doesNotThrow(() => planRun({ selected, limits: enough, seed: 1 }), `${JSON.stringify(enough)} holds them`);
    const less =
      'maxRequests' in limits ? { maxRequests: smallest - 1 } : { ...limits, maxDurationMs: (smallest - 2) * 1000 };
    assert.throws(() => planRun({ selected, limits: less, seed: 1 }), BudgetTooSmall, 'and nothing less');
  }
});

test('items go in order: what failed last time, then never judged, then judged longest ago; each fault by its first item', () => {
  const history = new Map([
    ['a', { runsAgo: 0 }],
    ['b', { runsAgo: 3 }],
    ['c', { runsAgo: 0, failed: true }],
    ['d', { runsAgo: 1 }],
  ]);
  assert.deepEqual(priorityOrder(['a', 'b', 'c', 'd', 'e'], history), ['c', 'e', 'b', 'd', 'a']);
  const revealing = { x: ['f1'], y: ['f1', 'f2'], z: ['f3'], w: ['f2'] };
  assert.deepEqual(
    priorityOrder(['w', 'x', 'y', 'z', 'v'], undefined, revealing),
    ['y', 'z', 'w', 'x', 'v'],
    'the item catching most faults not yet caught first; then by faults caught',
  );
  assert.deepEqual(
    priorityOrder(['w', 'x', 'y', 'z'], new Map([['y', { runsAgo: 0 }]]), revealing),
    ['z', 'w', 'x', 'y'],
    'within a group the revealing order holds; judged last run goes last',
  );
});

test('the budget reads as given', () => {
  assert.equal(
    budgetText({ ...PUBLISHED, maxDurationMs: 600_000, maxRequests: 300 }),
    '--max-duration 10 min, --max-requests 300 at --max-rps 3, /academic/v1.0/interpret 3/s, /academic/v1.0/evaluate 1/s, /academic/v1.0/calchistogram 0.1/s',
  );
});
