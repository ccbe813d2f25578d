// The invariants judging the answers the fixed battery and test-data discovery receive: the same
// predicates that judge every generated valid request, applied to the answers of requests a test
// meant to be valid (a 2xx to the full key, parameters as given), reported under each property's
// own id on the operation that answered.
import type { Failure } from '../failure.ts';
import { exchangeOf, judgeResponse, WARN_PROPERTIES } from './index.ts';

/** A request the request fixture sent and its answer, as far as the invariants read them. */
export interface JudgedAnswer {
  operationId: string;
  /** The operation label, e.g. `GET /academic/v1.0/evaluate`. */
  operation: string;
  /** The query or form parameters as given (absent when the request was sent raw). */
  params?: Record<string, string>;
  pathParams?: Record<string, string>;
  /** The test meant the request to be valid and sent it with the full key. */
  valid: boolean;
  status: number;
  json: unknown;
  curl: string;
  excerpt: string;
}

/**
 * The failures of the invariants of `enabled` checks on one answer. Only answers to requests meant
 * to be valid are judged (2xx, parameters known): an error-intent request, another key or a raw
 * body says nothing a property claims. A warning-level property (or violation) is a warning unless strict.
 */
export function judgeAnswer(answer: JudgedAnswer, enabled: (check: string) => boolean, strict = false): Failure[] {
  if (!answer.valid || answer.params === undefined || answer.status < 200 || answer.status >= 300) return [];
  const exchange = exchangeOf(
    answer.operationId,
    Object.entries(answer.params),
    answer.pathParams,
    answer.status,
    answer.json,
  );
  return judgeResponse(exchange, enabled).map(({ check, violation }) => {
    const warn = (violation.warn || WARN_PROPERTIES.has(check)) && !strict;
    return {
      check,
      operation: answer.operation,
      title: violation.title,
      received: violation.received,
      documented: violation.documented,
      ...(violation.pointer !== undefined ? { pointer: violation.pointer } : {}),
      excerpt: answer.excerpt,
      curl: answer.curl,
      origin: 'check' as const,
      via: 'property' as const,
      ...(warn ? { level: 'warn' as const } : {}),
    };
  });
}
