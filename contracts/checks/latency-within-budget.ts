import { defineCheck } from './registry.ts';

/** Applied by the request fixture: an answer that comes close to the deadline names its operation. */
export const check = defineCheck({
  id: 'latency-within-budget',
  severity: 'warn',
  verifies:
    'every answer arrives within its latency budget: three quarters of the per-request deadline, or latencyBudgetMs of the configuration file for its path; an operation slower than that twice is given up on: its other tests fail as not run: given up (severity off keeps testing it, within --max-duration)',
  kind: 'fixture',
  appliesTo: () => true,
});
