import { ALL_OPERATIONS, child, editOk, isObject, jsonOf, OPS, objects, withBody } from './transform.ts';
import type { Fault } from './types.ts';

/** Allowed but undocumented changes: `kgate conform` must pass on them and `kgate drift live` must report them. */
export function driftFaults(): Fault[] {
  return [
    {
      name: 'interpret-extra-logprob',
      group: 'academic',
      operations: [...OPS.interpret],
      deviation: 'drift',
      description: 'interpret adds an undocumented logprob (natural log of prob) beside prob on every interpretation',
      response: editOk((body) => {
        for (const interpretation of objects(body.interpretations)) {
          if (typeof interpretation.prob === 'number') interpretation.logprob = Math.log(interpretation.prob);
        }
      }),
    },
    {
      name: 'evaluate-extra-timed-out',
      group: 'academic',
      operations: [...OPS.evaluate],
      deviation: 'drift',
      description: 'evaluate adds an undocumented top-level timed_out boolean (a copy of aborted)',
      response: editOk((body) => {
        body.timed_out = body.aborted === true;
      }),
    },
    {
      name: 'answersearch-webpage-extra-property',
      group: 'answerSearch',
      operations: [...OPS.answerSearch],
      deviation: 'drift',
      description: 'answer search adds an undocumented isNavigational boolean to every web page',
      response: editOk((body) => {
        for (const page of objects(child(body, 'webPages')?.value)) page.isNavigational = false;
      }),
    },
    {
      name: 'answersearch-new-contractual-rule-type',
      group: 'answerSearch',
      operations: [...OPS.answerSearch],
      deviation: 'drift',
      description:
        "answer search adds a contractual rule of the undocumented _type 'ContractualRules/TextAttribution' to each entity",
      response: editOk((body) => {
        for (const entity of objects(child(body, 'entities')?.value)) {
          if (!Array.isArray(entity.contractualRules)) continue;
          entity.contractualRules.push({ _type: 'ContractualRules/TextAttribution', text: 'Data from Open Atlas' });
        }
      }),
    },
    {
      name: 'answersearch-ranking-news-answer-type',
      group: 'answerSearch',
      operations: [...OPS.answerSearch],
      deviation: 'drift',
      description:
        "answer search adds an undocumented news answer and a sidebar ranking item of answerType 'News' that references it",
      response: editOk((body) => {
        const sidebar = child(child(body, 'rankingResponse'), 'sidebar');
        if (!sidebar || !Array.isArray(sidebar.items)) return;
        const id = 'https://api.reference.kgate.test/api/v7/#News';
        body.news = { id, value: [] };
        sidebar.items.push({ answerType: 'News', value: { id } });
      }),
    },
    {
      name: 'urlpreview-extra-field',
      group: 'urlPreview',
      operations: [...OPS.urlPreview],
      deviation: 'drift',
      description: 'URL preview adds an undocumented isFamilyFriendly boolean',
      response: editOk((body) => {
        body.isFamilyFriendly = true;
      }),
    },
    {
      name: 'hotevents-extra-field',
      group: 'eventKnowledge',
      operations: ['hotEvents'],
      deviation: 'drift',
      description: 'hotevents adds an undocumented numeric hotness score to every event',
      response: editOk((body) => {
        for (const event of objects(body.value)) event.hotness = Number(event.documentCount) || 0;
      }),
    },
    {
      name: 'every-answer-extra-request-id',
      group: 'all',
      operations: [...ALL_OPERATIONS],
      deviation: 'drift',
      description:
        'every JSON object answer, of every operation and status (errors included), adds an undocumented top-level requestId string',
      // The same value on every answer: GET and POST of one request still answer alike.
      response: (_ctx, result) => {
        const body = jsonOf(result);
        if (!isObject(body)) return result;
        body.requestId = 'reference-request';
        return withBody(result, body);
      },
    },
  ];
}
