import type { Group, HandlerResult } from './faults/types.ts';

/** The groups of real operations (a fault's 'all' is not one). */
export type ApiGroup = Exclude<Group, 'all'>;

const ACADEMIC_CODES: Record<number, string> = {
  400: 'Bad Argument',
  401: 'Unspecified',
  403: 'QuotaExceeded',
  404: 'Unspecified',
  405: 'Unspecified',
  408: 'Timeout',
  500: 'Unspecified',
};

/** Messages shared by every group for the auth, quota and rate-limit answers. */
export const MESSAGES = {
  missingKey:
    'Access denied due to missing subscription key. Make sure to include subscription key when making requests to an API.',
  invalidKey:
    'Access denied due to invalid subscription key. Make sure to provide a valid key for an active subscription.',
  notSubscribed:
    'Access denied due to a subscription that does not cover this API. Make sure the key is subscribed to it.',
  quota: 'Out of call volume quota. Quota will be replenished in 1.00:00:00.',
  notFound: 'Resource not found',
  rateLimited: (seconds: number) => `Rate limit is exceeded. Try again in ${seconds} seconds.`,
} as const;

/**
 * An error answer in the group's documented shape. `parameter` names the offending parameter for
 * 400s (answer search / URL preview put it in `errors[0].parameter`, the others in the message).
 */
export function errorResult(
  group: ApiGroup | 'none',
  status: number,
  message: string,
  parameter?: string,
): HandlerResult {
  switch (group) {
    case 'academic':
    case 'similarity':
      return { status, body: { error: { code: ACADEMIC_CODES[status] ?? 'Unspecified', message } } };
    case 'answerSearch':
    case 'urlPreview':
      if (status === 400) {
        return {
          status,
          body: {
            _type: 'ErrorResponse',
            instrumentation: {},
            errors: [
              {
                code: 'InvalidRequest',
                subCode: 'ParameterInvalidValue',
                message,
                moreDetails: message,
                parameter: parameter ?? '',
              },
            ],
          },
        };
      }
      return { status, body: { error: { statusCode: status, message } } };
    case 'eventKnowledge':
    case 'none':
      return { status, body: { statusCode: status, message } };
  }
}

/** A 400 for a missing or invalid parameter, worded so that the message names the parameter. */
export function badParameter(group: ApiGroup, parameter: string, detail: string): HandlerResult {
  if (group === 'answerSearch' || group === 'urlPreview') {
    return errorResult(group, 400, `Parameter ${parameter} has an invalid value: ${detail}`, parameter);
  }
  return errorResult(group, 400, `Missing or invalid parameter: ${parameter} (${detail})`, parameter);
}
