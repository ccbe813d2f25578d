import { crawlTimestamp } from '../answer-search.ts';
import { child, editOk, objects } from './transform.ts';
import type { Fault } from './types.ts';

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
  ];
}
