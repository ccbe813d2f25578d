import { generativeTest } from '../generative/phase.ts';
import { defineCheck } from './registry.ts';

/** Generated requests that break exactly one documented rule get a 4xx, never a 2xx. */
export const check = defineCheck({
  id: 'negative-input-rejected',
  severity: 'fail',
  verifies:
    "generated requests that break exactly one documented rule (a missing required parameter, a wrong type, a value out of range, a malformed expression, an unknown or wrong-case attribute, an impossible date, an invalid URL, a malformed market, JSON posted instead of a form) get 400 in the group's error shape (event knowledge, a wrong content type: any 4xx), never a 2xx; a value written another way (+3, 007, 3e0) that a target refuses, it refuses so too",
  kind: 'generative',
  appliesTo: () => true,
  run: generativeTest('negative'),
});
