// k6 script of the 'spike' scenario (definition and thresholds in ../scenarios.ts).
// Does the target absorb a sudden sixfold jump in traffic and recover when it falls back?
// Run: k6 run -e BASE_URL=http://127.0.0.1:8080 -e KGATE_KEY=... load/k6/spike.ts
import { discover, iteration, type SetupData } from './lib.ts';
import { k6Options } from './options.ts';

/** Arrival profile and thresholds, shared with `kgate load spike`. */
export const options = k6Options('spike', __ENV);

/** Finds a real event id once, before the load starts. */
export function setup(): SetupData {
  return discover('spike');
}

/** One arrival of the scenario. */
export default function (data: SetupData): void {
  iteration('spike', data);
}
