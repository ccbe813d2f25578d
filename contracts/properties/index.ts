// The properties every generated valid request is judged on (besides the request fixture's
// checks): invariants of one answer, and relations and chains that send related requests.
import { RELATIONS } from './relations.ts';
import { RESPONSE_PROPERTIES } from './responses.ts';
import type { Exchange, Relation, ResponseProperty, Violation } from './types.ts';

export { RELATIONS } from './relations.ts';
export { RESPONSE_PROPERTIES } from './responses.ts';
export type { Exchange, Relation, RelationViolation, Reply, ResponseProperty, Send, Violation } from './types.ts';

/** Checks the interface grounds in samples only: their properties' violations are warnings unless --strict. */
export const WARN_PROPERTIES: ReadonlySet<string> = new Set(['histogram-ordered-by-count', 'event-ids-are-32-hex']);

/** Check ids that have a property (an invariant or a relation). */
export const PROPERTY_CHECKS: ReadonlySet<string> = new Set([
  ...RESPONSE_PROPERTIES.map((property) => property.check),
  ...RELATIONS.map((relation) => relation.check),
]);

/** The violations of every invariant that applies to the exchange and whose check is enabled. */
export function judgeResponse(
  exchange: Exchange,
  enabled: (check: string) => boolean = () => true,
): { check: string; violation: Violation }[] {
  const out: { check: string; violation: Violation }[] = [];
  for (const property of applicable(exchange.operationId)) {
    if (!enabled(property.check)) continue;
    for (const violation of property.judge(exchange)) out.push({ check: property.check, violation });
  }
  return out;
}

/** The enabled checks whose invariants could show a defect in the exchange (it carries what they read). */
export function propertiesReading(exchange: Exchange, enabled: (check: string) => boolean = () => true): string[] {
  const out: string[] = [];
  for (const property of applicable(exchange.operationId))
    if (enabled(property.check) && property.reads(exchange)) out.push(property.check);
  return out;
}

/** Checks that have an invariant: a skip of theirs says whether any answer carried what it reads. */
export const INVARIANT_CHECKS: ReadonlySet<string> = new Set(RESPONSE_PROPERTIES.map((property) => property.check));

const APPLICABLE = new Map<string, readonly ResponseProperty[]>();

/** The invariants of an operation, worked out once: every answer of a run is judged by them. */
function applicable(operationId: string): readonly ResponseProperty[] {
  let found = APPLICABLE.get(operationId);
  if (!found) {
    found = RESPONSE_PROPERTIES.filter((property) => property.appliesTo(operationId));
    APPLICABLE.set(operationId, found);
  }
  return found;
}

/** The relations the exchange can start, of enabled checks. */
export function relationsFor(exchange: Exchange, enabled: (check: string) => boolean = () => true): Relation[] {
  return RELATIONS.filter(
    (relation) =>
      enabled(relation.check) && relation.operations.includes(exchange.operationId) && relation.appliesTo(exchange),
  );
}

/** The exchange of a request given as name/value pairs (the last of a repeated name wins). */
export function exchangeOf(
  operationId: string,
  pairs: readonly [string, string][],
  pathParams: Record<string, string> | undefined,
  status: number,
  json: unknown,
): Exchange {
  return { operationId, params: Object.fromEntries(pairs), pathParams: pathParams ?? {}, status, json };
}
