// Pages that deliver fewer results than asked, skipping some, where the interface allows it: answer
// search ("the number delivered may be smaller", 4.9) and interpret ("maximum number of
// interpretations to return", 4.1). The results a deployment leaves out (filtered, deduplicated,
// withheld in a market) are left out wherever they fall, the same ones in every answer; the offset
// still counts the results as ranked, so a page of count c holds what is left of those c.
import { child, editOk, isObject, objects } from '../faults/transform.ts';
import type { Variation } from './types.ts';

/** Whether a result is one the deployment leaves out: about one in three, chosen by what names it, the same in every answer. */
export function skipped(name: string): boolean {
  let hash = 2166136261;
  for (let i = 0; i < name.length; i++) hash = Math.imul(hash ^ name.charCodeAt(i), 16777619);
  return (hash >>> 0) % 3 === 1;
}

/** The variations that deliver fewer, skipping some. */
export function fewerVariations(): Variation[] {
  return [
    {
      name: 'answersearch-fewer-skipping-some',
      group: 'answerSearch',
      operations: ['answerSearch'],
      deviation: 'legitimate',
      allowedBy: 'interface 4.9: count is the number of results to return; the number delivered may be smaller',
      description:
        'answer search leaves out about one web page in three wherever it falls on a page (the same pages in every answer; offset counts them still), the ranking renumbered to the pages delivered',
      response: editOk((body) => {
        const pages = child(body, 'webPages');
        if (!pages || !Array.isArray(pages.value)) return;
        const all = objects(pages.value);
        const left = all.map((page) => typeof page.url === 'string' && skipped(page.url));
        const kept = new Set(all.filter((_, i) => !left[i]).map((page) => page.id));
        // Where each page delivered now stands: its index less the pages left out before it.
        const index = (old: number) => old - left.slice(0, old).filter(Boolean).length;
        pages.value = all.filter((_, i) => !left[i]);
        for (const section of Object.values(child(body, 'rankingResponse') ?? {})) {
          if (!isObject(section) || !Array.isArray(section.items)) continue;
          section.items = objects(section.items)
            .filter(
              (item) =>
                item.answerType !== 'WebPages' ||
                (typeof item.resultIndex === 'number'
                  ? !left[item.resultIndex]
                  : item.value === undefined || kept.has(child(item, 'value')?.id)),
            )
            .map((item) =>
              item.answerType === 'WebPages' && typeof item.resultIndex === 'number'
                ? { ...item, resultIndex: index(item.resultIndex) }
                : item,
            );
        }
      }),
    },
    {
      name: 'interpret-fewer-skipping-some',
      group: 'academic',
      operations: ['interpretGet', 'interpretPost'],
      deviation: 'legitimate',
      allowedBy: 'interface 4.1: count is the maximum number of interpretations to return',
      description:
        'interpret leaves out about one interpretation in three wherever it falls on a page (the same ones in every answer, by their parse; offset counts them still)',
      response: editOk((body) => {
        if (!Array.isArray(body.interpretations)) return;
        body.interpretations = objects(body.interpretations).filter(
          (interpretation) => !(typeof interpretation.parse === 'string' && skipped(interpretation.parse)),
        );
      }),
    },
  ];
}
