// What the generator's kinds of case carry beyond what their values show (classify.ts reads the
// values): the class a kind is built around where a value cannot show it (an author's name, a date
// with events, an expression's form), and the kinds the plan never packs with others.
import { EXPRESSION_EDGES, EXPRESSION_FEATURES, EXPRESSION_MUTATIONS } from '../generative/expression.ts';

/** `input:class` pairs a kind declares, by kind name (and for some, by operation base). */
const DECLARED: Record<string, readonly string[]> = {
  'query:author': ['query:author'],
  'query:author-prefix': ['query:name-prefix'],
  'query:title': ['query:title'],
  'query:words': ['query:words'],
  'query:author-after-year': ['query:author-and-year'],
  'texts:titles': ['s1:title', 's2:title'],
  'texts:words': ['s1:words', 's2:words'],
  'texts:same': ['s1:same-as-other', 's2:same-as-other'],
  // Long texts a GET can carry too: get-and-post-agree sends the GET twin of a long POST.
  'texts:long-get-safe': ['s1:long', 's2:long'],
  'q:known-query': ['q:known-query'],
  'q:words': ['q:words'],
  'q:entity': ['q:entity-name'],
  'q:known-url': ['q:known-page'],
  'q:known-url-with-query': ['q:known-page'],
  'chain:answer-url': ['q:answer-url'],
  'edge:unknown-site': ['q:unknown-site'],
  'date:with-events': ['date:with-events'],
  'date:with-events-page': ['date:with-events'],
  'date:far': ['date:far-date'],
  'wikipediaid:known': ['wikipediaid:known'],
  'chain:hot-event-entity': ['wikipediaid:event-entity'],
  'edge:unknown-id': ['wikipediaid:unknown'],
  'event:known': ['event_id:known'],
  'chain:hot-event-id': ['event_id:from-hot-events'],
  'edge:unknown-event': ['event_id:unknown'],
  'chain:interpret-output': ['expr:interpret-output'],
  ...Object.fromEntries(
    EXPRESSION_FEATURES.filter((feature) => feature !== 'world-value').map((feature) => [
      `expr:${feature}`,
      [`expr:${feature}`],
    ]),
  ),
  ...Object.fromEntries(EXPRESSION_MUTATIONS.map((mutation) => [`expr:${mutation}`, [`expr:${mutation}`]])),
  ...Object.fromEntries(EXPRESSION_EDGES.map((form) => [`edge:expr-${form}`, [`expr:${form}`]])),
};

/** The `input:class` pairs a kind declares. */
export function declaredClasses(kind: string): readonly string[] {
  return DECLARED[kind] ?? [];
}

/**
 * Kinds the plan sends alone, never packed with another: chains (their input comes from another
 * answer), a page of size zero (an empty answer judges nothing else), the paging window (its
 * relation pages through the very request), timeouts (an answer cut short says nothing of the other
 * inputs), a text compared with itself, bodies written by hand.
 */
export function sentAlone(kind: string): boolean {
  return (
    kind.startsWith('chain:') ||
    /^paging:.*-zero$/.test(kind) ||
    kind === 'paging:window' ||
    kind === 'paging:second-page' ||
    kind === 'interpret:timeout' ||
    kind === 'interpret:complete-zero' ||
    kind === 'texts:same' ||
    kind === 'post:unencoded-body' ||
    kind === 'post:wrong-content-type'
  );
}
