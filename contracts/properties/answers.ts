// The invariants judging the answers the fixed battery and test-data discovery receive: the same
// predicates that judge every generated valid request, applied to the answers of requests a test
// meant to be valid (a 2xx to the full key, parameters as given), reported under each property's
// own id on the operation that answered.
import type { Failure } from '../failure.ts';
import { exchangeOf, judgeResponse, propertiesReading, WARN_PROPERTIES } from './index.ts';
import type { Exchange } from './types.ts';

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
  const exchange = exchangeOfAnswer(answer);
  if (!exchange) return [];
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

/** The exchange the invariants read, for an answer they judge (see judgeAnswer); undefined otherwise. */
function exchangeOfAnswer(answer: JudgedAnswer): Exchange | undefined {
  if (!answer.valid || answer.params === undefined || answer.status < 200 || answer.status >= 300) return undefined;
  return exchangeOf(answer.operationId, Object.entries(answer.params), answer.pathParams, answer.status, answer.json);
}

/** The enabled checks whose invariants judged something in the answer (it carried what they read). */
export function answerReadBy(answer: JudgedAnswer, enabled: (check: string) => boolean): string[] {
  const exchange = exchangeOfAnswer(answer);
  return exchange ? propertiesReading(exchange, enabled) : [];
}

/** How a judged (check, operation) pair travels in test outcomes: `<check> <operation label>`. */
export function judgedKey(check: string, operation: string): string {
  return `${check} ${operation}`;
}
