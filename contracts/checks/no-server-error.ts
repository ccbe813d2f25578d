import { generativeTest } from '../generative/phase.ts';
import { defineCheck } from './registry.ts';

/** No generated request gets a 5xx: valid, invalid by one rule, or of a form the interface leaves open. */
export const check = defineCheck({
  id: 'no-server-error',
  severity: 'fail',
  verifies:
    'no generated request (valid, invalid by one documented rule, or of a form the interface leaves open: empty, long, non-ASCII, control characters, repeated parameters...) gets a 5xx; input a server cannot process deserves a 4xx, documented 500s included',
  kind: 'generative',
  appliesTo: () => true,
  // Its own test sends the unusual requests; the valid and invalid ones of the other two tests are judged by it too.
  run: generativeTest('edge'),
});
