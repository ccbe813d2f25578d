import { defineCheck } from './registry.ts';

/** Applied by the request fixture: every body parses as JSON. */
export const check = defineCheck({
  id: 'body-is-json',
  severity: 'fail',
  verifies: 'every response body is valid JSON',
  kind: 'fixture',
  appliesTo: () => true,
});
