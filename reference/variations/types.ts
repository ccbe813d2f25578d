import type { Fault } from '../faults/types.ts';

/**
 * A legitimate variation of the reference server: what a real deployment may do because a standard
 * the interface rests on allows it (JSON text, timestamps, HTTP fields) or the interface leaves it
 * free ("may be smaller", an order it does not state). Built like a fault (a transform around the
 * clean handlers, applied to the operations it lists) and served under `{url}/variations/<name>`;
 * `kgate conform` must pass every one.
 */
export interface Variation extends Fault {
  deviation: 'legitimate';
  /** The clause that allows it: `RFC 8259, section 2`, `interface 4.9 ("may be smaller")`. */
  allowedBy: string;
}
