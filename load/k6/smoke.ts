// k6 script of the 'smoke' scenario (definition and thresholds in ../scenarios.ts).
// Does every operation answer correctly (status and schema) under trivial load?
// Run: k6 run -e BASE_URL=http://127.0.0.1:8080 -e KGATE_KEY=... load/k6/smoke.ts
import { discover, iteration, type SetupData } from './lib.ts';
import { k6Options } from './options.ts';

/** Arrival profile and thresholds, shared with `kgate load smoke`. */
export const options = k6Options('smoke', __ENV);

/** Finds a real event id once, before the load starts. */
export function setup(): SetupData {
  return discover('smoke');
}

/** One arrival of the scenario. */
export default function (data: SetupData): void {
  iteration('smoke', data);
}
