// k6 script of the 'steady' scenario (definition and thresholds in ../scenarios.ts).
// Does the target hold its latency and error budget at the planned everyday rate?
// Run: k6 run -e BASE_URL=http://127.0.0.1:8080 -e KGATE_KEY=... load/k6/steady.ts
import { discover, iteration, type SetupData } from './lib.ts';
import { k6Options } from './options.ts';

/** Arrival profile and thresholds, shared with `kgate load steady`. */
export const options = k6Options('steady', __ENV);

/** Finds a real event id once, before the load starts. */
export function setup(): SetupData {
  return discover('steady');
}

/** One arrival of the scenario. */
export default function (data: SetupData): void {
  iteration('steady', data);
}
