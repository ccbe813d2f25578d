import { ALL_OPERATIONS, child, jsonOf, withBody } from './transform.ts';
import type { Fault, Group } from './types.ts';

function authNotEnforced(operationId: string, group: Group, label: string): Fault {
  return {
    name: `auth-not-enforced-${label}`,
    group,
    operations: [operationId],
    deviation: 'forbidden',
    description: `${operationId} answers 200 with no key or a wrong key instead of 401 (every other operation still checks)`,
    settings: { authExemptOperations: [operationId] },
  };
}

function unsubscribedAccepted(operationId: string, group: Group, label: string): Fault {
  return {
    name: `auth-unsubscribed-accepted-${label}`,
    group,
    operations: [operationId],
    deviation: 'forbidden',
    description: `${operationId} accepts a valid key that is not subscribed to its API (200 instead of 401)`,
    settings: { subscriptionExemptOperations: [operationId] },
  };
}

/** Forbidden deviations of authentication and quota, at least one per group. */
export function authFaults(): Fault[] {
  return [
    authNotEnforced('evaluatePost', 'academic', 'evaluate-post'),
    authNotEnforced('similarityGet', 'similarity', 'similarity-get'),
    authNotEnforced('answerSearch', 'answerSearch', 'answersearch'),
    authNotEnforced('urlPreview', 'urlPreview', 'urlpreview'),
    authNotEnforced('hotEvents', 'eventKnowledge', 'hotevents'),
    unsubscribedAccepted('answerSearch', 'answerSearch', 'answersearch'),
    unsubscribedAccepted('relatedEvents', 'eventKnowledge', 'relatedevents'),
    {
      name: 'quota-not-enforced',
      group: 'all',
      operations: ALL_OPERATIONS,
      deviation: 'forbidden',
      description: 'a key whose quota is used up gets 200 on every operation instead of 403',
      settings: { quotaEnforced: false },
    },
    {
      name: 'evaluate-exhausted-key-401',
      group: 'academic',
      operations: ['evaluateGet', 'evaluatePost'],
      deviation: 'forbidden',
      description:
        "evaluate answers a key whose quota is used up with 401 'Unspecified' instead of 403 'QuotaExceeded'",
      response(_ctx, result) {
        if (result.status !== 403) return result;
        const message = String(
          child(jsonOf(result), 'error')?.message ?? 'Access denied due to invalid subscription key.',
        );
        return withBody({ status: 401 }, { error: { code: 'Unspecified', message } });
      },
    },
  ];
}
