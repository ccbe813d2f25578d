import { editNumber, OPS } from './transform.ts';
import type { Fault } from './types.ts';

/** A body 256 KB long is well under the documented 1 MB but over this limit. */
const TOO_SMALL_LIMIT = 256 * 1024;

/** Forbidden deviations of similarity (GET and POST). */
export function similarityFaults(): Fault[] {
  return [
    {
      name: 'similarity-asymmetric',
      group: 'similarity',
      operations: [...OPS.similarity],
      deviation: 'forbidden',
      description:
        'similarity(s1,s2) differs from similarity(s2,s1): when s1 sorts after s2 the score moves 0.25 towards 0',
      response: editNumber((value, ctx) => {
        const { s1 = '', s2 = '' } = ctx.params;
        if (s1 <= s2) return value;
        return value >= 0 ? value - 0.25 : value + 0.25;
      }),
    },
    {
      name: 'similarity-out-of-range',
      group: 'similarity',
      operations: [...OPS.similarity],
      deviation: 'forbidden',
      description: 'similarity is reported on a 0..100 percent scale instead of -1..1',
      response: editNumber((value) => (value + 1) * 50),
    },
    {
      name: 'similarity-self-not-one',
      group: 'similarity',
      operations: [...OPS.similarity],
      deviation: 'forbidden',
      description: 'similarity of a text with itself is 0.9 of the clean score (0.9 instead of 1)',
      response: editNumber((value, ctx) => (ctx.params.s1 === ctx.params.s2 ? value * 0.9 : value)),
    },
    {
      name: 'similarity-post-differs',
      group: 'similarity',
      operations: ['similarityPost'],
      deviation: 'forbidden',
      description: 'POST similarity is rounded to one decimal place (GET is not), so GET and POST disagree',
      response: editNumber((value, ctx) => (ctx.method === 'POST' ? Math.round(value * 10) / 10 : value)),
    },
    {
      name: 'similarity-as-string',
      group: 'similarity',
      operations: [...OPS.similarity],
      deviation: 'forbidden',
      description: 'similarity 200 body is a JSON string ("0.61") instead of a number',
      response: editNumber((value) => String(value)),
    },
    {
      name: 'similarity-no-body-limit',
      group: 'similarity',
      operations: ['similarityPost'],
      deviation: 'forbidden',
      description: 'similarity POST has no body limit: a 2 MB body is answered 200 instead of an error',
      settings: { bodyLimit: Number.POSITIVE_INFINITY },
    },
    {
      name: 'similarity-body-limit-too-small',
      group: 'similarity',
      operations: ['similarityPost'],
      deviation: 'forbidden',
      description: 'similarity POST rejects bodies over 256 KB, well under the documented 1 MB',
      settings: { bodyLimit: TOO_SMALL_LIMIT },
    },
    {
      name: 'similarity-body-limit-413',
      group: 'similarity',
      operations: ['similarityPost'],
      deviation: 'forbidden',
      description: 'similarity POST over 1 MB is answered 413, a status the interface does not document for similarity',
      settings: { bodyLimitStatus: 413 },
    },
    {
      name: 'similarity-body-limit-500',
      group: 'similarity',
      operations: ['similarityPost'],
      deviation: 'forbidden',
      description: 'similarity POST over 1 MB is answered 500 (an internal error) instead of a 400 for the client',
      settings: { bodyLimitStatus: 500 },
    },
  ];
}
