// What the property tests judge and ask: an exchange built by hand, and a fake target that answers
// a relation's requests from a function and records them.
import type { Exchange, Reply } from './index.ts';

/** An exchange of `operationId` with the given query parameters and answer. */
export const x = (operationId: string, params: Record<string, string>, json: unknown, status = 200): Exchange => ({
  operationId,
  params,
  pathParams: {},
  status,
  json,
});

/** A relation's sender answering from a function (status 200 unless it says otherwise), recording the requests. */
export function sender(
  answer: (
    operationId: string,
    params: Record<string, string>,
    path?: Record<string, string>,
  ) => { status?: number; json: unknown },
) {
  const sent: string[] = [];
  const send = async (
    operationId: string,
    request: { params: Record<string, string>; pathParams?: Record<string, string> },
  ): Promise<Reply> => {
    sent.push(`${operationId} ${new URLSearchParams(request.params)}`);
    const { status = 200, json } = answer(operationId, request.params, request.pathParams);
    return { operationId, status, json, curl: 'curl' };
  };
  return { send, sent };
}
