import { defineCheck } from './registry.ts';

/** Applied by the request fixture: every response is labelled application/json. */
export const check = defineCheck({
  id: 'content-type-is-json',
  severity: 'fail',
  verifies: 'every response carries a JSON Content-Type (application/json)',
  kind: 'fixture',
  appliesTo: () => true,
});
