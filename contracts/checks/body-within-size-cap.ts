import { defineCheck } from './registry.ts';

/** Applied by the request fixture: a body larger than the cap is abandoned and reported. */
export const check = defineCheck({
  id: 'body-within-size-cap',
  severity: 'fail',
  verifies: 'every response body stays within the harness size cap (8 MiB); a larger one is abandoned unread',
  kind: 'fixture',
  appliesTo: () => true,
});
