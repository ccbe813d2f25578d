import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  type Choice,
  chooseUnits,
  dueSentinels,
  type ItemHistory,
  itemWeight,
  SENTINEL_RUNS,
  type Sentinel,
  WEIGHT,
} from './rotation.ts';

test('an item weighs by what the ledger says of it: failed or cut short by a quota, then never judged, then the oldest', () => {
  const history = new Map<string, ItemHistory>([
    ['failed', { runsAgo: 0, failed: true }],
    ['cut-short', { runsAgo: 2, cutShort: true }],
    ['cut-short-never-judged', { cutShort: true }],
    ['last-run', { runsAgo: 0 }],
    ['three-runs-ago', { runsAgo: 3 }],
    ['very-old', { runsAgo: 5_000 }],
  ]);
  const cases: { given: string; want: number }[] = [
    { given: 'failed', want: WEIGHT.failed },
    // What a quota that ran out kept a run from judging is sent first, with what failed.
    { given: 'cut-short', want: WEIGHT.due },
    { given: 'cut-short-never-judged', want: WEIGHT.due },
    { given: 'never', want: WEIGHT.never },
    { given: 'last-run', want: WEIGHT.aged },
    { given: 'three-runs-ago', want: 4 * WEIGHT.aged },
  ];
  for (const { given, want } of cases) assert.equal(itemWeight(history, given), want, given);
  assert.ok(itemWeight(history, 'very-old') < WEIGHT.never, 'judged long ago still weighs less than never judged');
  assert.equal(itemWeight(undefined, 'anything'), WEIGHT.never, 'without a ledger every item is new');
});

test("each group's auth and error cells come back within SENTINEL_RUNS runs, or on every run when they cost little", () => {
  const sentinels: Sentinel[] = [
    {
      group: 'academic',
      check: 'auth-required',
      cells: [
        { cell: 'a1', cost: 3 },
        { cell: 'a2', cost: 2 },
      ],
    },
    { group: 'urlPreview', check: 'auth-required', cells: [{ cell: 'u1', cost: 3 }] },
  ];
  const cases: { given: { history?: Map<string, ItemHistory>; room: number }; want: string[] }[] = [
    // Without a ledger every run judges them, the cheaper cell first among equals.
    { given: { room: 50 }, want: ['a2', 'u1'] },
    // Judged last run: not due where they would take more than a tenth of the room.
    {
      given: {
        history: new Map([
          ['a1', { runsAgo: 0 }],
          ['u1', { runsAgo: 0 }],
        ]),
        room: 40,
      },
      want: [],
    },
    // A run whose room holds them at a tenth or less judges them every time, the oldest cell of each.
    {
      given: {
        history: new Map([
          ['a1', { runsAgo: 0 }],
          ['u1', { runsAgo: 0 }],
        ]),
        room: 100,
      },
      want: ['a2', 'u1'],
    },
    // Last judged SENTINEL_RUNS - 1 runs ago: due now, so never more than SENTINEL_RUNS runs apart.
    {
      given: {
        history: new Map([
          ['a1', { runsAgo: SENTINEL_RUNS - 2 }],
          ['a2', { runsAgo: SENTINEL_RUNS - 1 }],
          ['u1', { runsAgo: SENTINEL_RUNS - 1 }],
        ]),
        room: 40,
      },
      want: ['u1'],
    },
  ];
  for (const { given, want } of cases)
    assert.deepEqual(dueSentinels(sentinels, given.history, given.room), want, JSON.stringify(given));
});

test('units are chosen by what they judge for what they cost, ranked items first, each item counted once', () => {
  const units: Choice[] = [
    { id: 'one-new-item-dear', judges: ['n1'], share: 0.6 },
    { id: 'three-new-items', judges: ['n2', 'n3', 'n4'], share: 0.2 },
    { id: 'old-items-cheap', judges: ['o1', 'o2'], share: 0.1 },
    { id: 'repeats-the-three', judges: ['n2', 'n3'], share: 0.15 },
    { id: 'failed-item', judges: ['f1'], share: 0.3 },
  ];
  const history = new Map<string, ItemHistory>([
    ['o1', { runsAgo: 2 }],
    ['o2', { runsAgo: 2 }],
    ['f1', { runsAgo: 0, failed: true }],
  ]);
  let room = 1;
  const tried: string[] = [];
  const chosen = chooseUnits(
    units,
    (item) => itemWeight(history, item),
    {},
    (unit) => {
      tried.push(unit.id);
      if (unit.share > room) return false;
      room -= unit.share;
      return true;
    },
  );
  assert.deepEqual(
    chosen.map((unit) => unit.id),
    ['failed-item', 'three-new-items', 'old-items-cheap'],
    'the failure first, then never judged for its price, then what fits of the rest',
  );
  assert.ok(tried.includes('one-new-item-dear'), 'a unit that does not fit is passed over');
  assert.ok(!tried.includes('repeats-the-three'), 'a unit judging nothing new is never tried');
  const revealing = { n1: ['fault-a', 'fault-b', 'fault-c', 'fault-d'] };
  const ranked = chooseUnits(
    [
      { id: 'plain', judges: ['p1'], share: 0.1 },
      { id: 'revealing', judges: ['n1'], share: 0.1 },
    ],
    () => WEIGHT.never,
    revealing,
    () => true,
  );
  assert.deepEqual(
    ranked.map((unit) => unit.id),
    ['revealing', 'plain'],
    'among equals, what caught faults of the catalogue goes first',
  );
});
