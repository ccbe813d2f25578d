import { baseOf } from '../generative/cases.ts';
import { generativeTest } from '../generative/phase.ts';
import { defineCheck } from './registry.ts';

/** The operations whose answers feed generated requests of an operation (stateful chains). */
const CHAINS: Record<string, string[]> = {
  evaluate: ['interpretGet'],
  calchistogram: ['interpretGet'],
  urlPreview: ['answerSearch'],
  relatedEvents: ['hotEvents'],
  eventDocuments: ['hotEvents'],
};

/** Generated valid requests get a 2xx. */
export const check = defineCheck({
  id: 'positive-input-accepted',
  severity: 'fail',
  verifies:
    'generated valid requests get a 2xx: valid by the spec and by the expression grammar of facts.md (every form, nested deeply and shallowly, And/Or of any arity and in upper case), GET and POST, form bodies encoded and not, values drawn from the target, interpret outputs sent to evaluate and calchistogram, event ids and entities of hot events sent to documents and related events',
  kind: 'generative',
  appliesTo: () => true,
  reads: (op) => CHAINS[baseOf(op)] ?? [],
  run: generativeTest('positive'),
});
