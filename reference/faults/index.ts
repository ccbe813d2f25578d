import type { Fault } from './types.ts';

/** The fault catalogue served under `{url}/faults/<name>`. */
export const FAULTS: Fault[] = [];
