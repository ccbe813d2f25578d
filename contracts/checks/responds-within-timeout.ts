import { defineCheck } from './registry.ts';

/** Applied by the request fixture: headers and body arrive within the per-request deadline. */
export const check = defineCheck({
  id: 'responds-within-timeout',
  severity: 'fail',
  verifies: 'every response arrives complete (headers and body) within the per-request deadline (--timeout)',
  kind: 'fixture',
  appliesTo: () => true,
});
