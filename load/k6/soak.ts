// k6 script of the 'soak' scenario (definition and thresholds in ../scenarios.ts).
// Does latency or the error rate drift upwards when a moderate rate is held for a long time?
// Run: k6 run -e BASE_URL=http://127.0.0.1:8080 -e KGATE_KEY=... load/k6/soak.ts
import { discover, iteration, type SetupData } from './lib.ts';
import { k6Options } from './options.ts';

/** Arrival profile and thresholds, shared with `kgate load soak`. */
export const options = k6Options('soak', __ENV);

/** Finds a real event id once, before the load starts. */
export function setup(): SetupData {
  return discover('soak');
}

/** One arrival of the scenario. */
export default function (data: SetupData): void {
  iteration('soak', data);
}
