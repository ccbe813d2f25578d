import { crawlTimestamp } from '../answer-search.ts';
import { child, editNumber, editOk, OPS, objects } from './transform.ts';
import type { Fault } from './types.ts';

/** How far `academic-scores-last-digits` moves a score, relative to it: the last digits of a double. */
export const SCORE_WOBBLE = 1e-12;

/**
 * Moves every fraction of a JSON value (scores; counts and ids are integers) by the same relative
 * `factor`, in place: one answer's scores keep their order and their ties, as one replica's do.
 */
function rescale(value: unknown, factor: number): unknown {
  if (typeof value === 'number') return Number.isInteger(value) ? value : value * factor;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = rescale(value[i], factor);
  } else if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) record[key] = rescale(record[key], factor);
  }
  return value;
}

/** How far `academic-scores-single-precision` moves a score: single-precision arithmetic (about 6e-8), rounded up. */
export const SINGLE_PRECISION_WOBBLE = 1e-7;

/** A response hook moving every score of an answer by a factor just below 1 (a score in [-1, 1] stays in it), different for every answer. */
function wobbling(amplitude: number): NonNullable<Fault['response']> {
  const wobble = () => 1 - Math.random() * amplitude;
  const wobbleNumber = editNumber((value) => value * wobble());
  const wobbleScores = editOk((body) => {
    rescale(body, wobble());
  });
  // Similarity answers a bare number; the others an object whose fractions are scores.
  return (ctx, result) => (ctx.group === 'similarity' ? wobbleNumber : wobbleScores)(ctx, result);
}

/** How much slower `evaluate-slow-40ms` answers GET evaluate, in milliseconds. */
export const SLOW_MS = 40;

/**
 * Conforming changes a release may bring, or a deployment may show from one call to the next:
 * `kgate conform` passes each; `kgate compare` reports the slower operation and sets the noise aside.
 */
export function releaseFaults(): Fault[] {
  return [
    {
      name: 'evaluate-slow-40ms',
      group: 'academic',
      operations: ['evaluateGet'],
      deviation: 'release',
      description: `GET evaluate answers as the clean server does, ${SLOW_MS} ms later (POST evaluate and every other operation as fast as ever)`,
      response: async (_ctx, result) => {
        await new Promise((resolve) => setTimeout(resolve, SLOW_MS));
        return result;
      },
    },
    {
      name: 'answersearch-run-to-run-noise',
      group: 'answerSearch',
      operations: ['answerSearch'],
      deviation: 'release',
      description:
        'answer search varies from one call to the next as a live index does: every dateLastCrawled moves by up to a day, totalEstimatedMatches by up to 2 in its last digit',
      response: editOk((body) => {
        const pages = child(body, 'webPages');
        if (!pages) return;
        if (typeof pages.totalEstimatedMatches === 'number') {
          pages.totalEstimatedMatches = Math.max(
            0,
            pages.totalEstimatedMatches + Math.round((Math.random() - 0.5) * 4),
          );
        }
        for (const page of objects(pages.value)) {
          const crawled = typeof page.dateLastCrawled === 'string' ? Date.parse(page.dateLastCrawled) : Number.NaN;
          if (Number.isFinite(crawled)) {
            page.dateLastCrawled = crawlTimestamp(crawled - Math.floor(Math.random() * 86_400) * 1000);
          }
        }
      }),
    },
    {
      name: 'academic-scores-last-digits',
      group: 'academic',
      operations: [...OPS.interpret, ...OPS.evaluate, ...OPS.calchistogram, ...OPS.similarity],
      deviation: 'release',
      description: `every score of interpret, evaluate, calchistogram and similarity (prob, logprob, the similarity value) differs from one answer to the next in its last digits (relative ${SCORE_WOBBLE}), as replicas that round differently answer; counts and ids are exact`,
      response: wobbling(SCORE_WOBBLE),
    },
    {
      name: 'academic-scores-single-precision',
      group: 'academic',
      operations: [...OPS.interpret, ...OPS.evaluate, ...OPS.calchistogram, ...OPS.similarity],
      deviation: 'release',
      description: `every score of interpret, evaluate, calchistogram and similarity differs from one answer to the next by up to a relative ${SINGLE_PRECISION_WOBBLE}, as replicas computing in single precision answer: beyond a double's last digits, far below what a client could notice; counts and ids are exact`,
      response: wobbling(SINGLE_PRECISION_WOBBLE),
    },
  ];
}
