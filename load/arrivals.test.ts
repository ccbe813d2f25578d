import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ArrivalSchedule } from './arrivals.ts';
import { plannedArrivals, SCENARIOS } from './scenarios.ts';

function all(schedule: ArrivalSchedule): number[] {
  const out: number[] = [];
  for (let t = schedule.next(); t !== undefined; t = schedule.next()) out.push(t);
  return out;
}

const cases = [
  {
    given: { startRate: 10, stages: [{ durationS: 1, target: 10 }] },
    want: { total: 10, first: [0, 100, 200], last: 900 },
  },
  {
    // Linear ramp 0 -> 100/s over 1 s: arrival k at sqrt(2k/100) s.
    given: { startRate: 0, stages: [{ durationS: 1, target: 100 }] },
    want: { total: 50, first: [0, 141.42, 200], last: 989.95 },
  },
  {
    given: {
      startRate: 4,
      stages: [
        { durationS: 1, target: 4 },
        { durationS: 1, target: 8 },
      ],
    },
    want: { total: 10, first: [0, 250, 500], last: 1870.83 },
  },
];

for (const { given, want } of cases) {
  test(`arrivals of ${given.startRate}/s then ${given.stages.map((s) => `${s.target}/s over ${s.durationS}s`).join(', ')}`, () => {
    const schedule = new ArrivalSchedule(given.startRate, given.stages);
    const times = all(schedule);
    assert.equal(schedule.total, want.total);
    assert.equal(times.length, want.total);
    for (const [i, t] of want.first.entries()) {
      assert.ok(Math.abs(times[i]! - t) < 0.05, `arrival ${i} at ${times[i]} ms, want ${t}`);
    }
    assert.ok(Math.abs(times.at(-1)! - want.last) < 0.1, `last arrival at ${times.at(-1)} ms, want ${want.last}`);
    for (let i = 1; i < times.length; i++) assert.ok(times[i]! >= times[i - 1]!, 'arrival times never go back');
  });
}

test('every scenario plans as many arrivals as its profile integrates to, within its duration', () => {
  for (const scenario of Object.values(SCENARIOS)) {
    const schedule = new ArrivalSchedule(scenario.startRate, scenario.stages);
    assert.equal(schedule.total, plannedArrivals(scenario), scenario.name);
    const times = all(schedule);
    const durationMs = scenario.stages.reduce((sum, s) => sum + s.durationS, 0) * 1000;
    assert.ok(times.at(-1)! < durationMs, `${scenario.name}: last arrival inside the run`);
  }
});

test('the spike scenario sends at its peak rate during the plateau', () => {
  const spike = SCENARIOS.spike!;
  const times = all(new ArrivalSchedule(spike.startRate, spike.stages));
  const inPlateau = times.filter((t) => t >= 14_000 && t < 22_000).length;
  assert.ok(Math.abs(inPlateau - 300 * 8) <= 1, `${inPlateau} arrivals in 8 s of plateau`);
  const inBaseline = times.filter((t) => t < 10_000).length;
  assert.equal(inBaseline, 500);
});
