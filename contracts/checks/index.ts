import { check as attributesAreHonoured } from './attributes-are-honoured.ts';
import { check as authRequired } from './auth-required.ts';
import { check as authRequiresSubscription } from './auth-requires-subscription.ts';
import { check as bodyIsJson } from './body-is-json.ts';
import { check as bodyLimitEnforced } from './body-limit-enforced.ts';
import { check as bodyWithinSizeCap } from './body-within-size-cap.ts';
import { check as connectionCompletes } from './connection-completes.ts';
import { check as contentTypeIsJson } from './content-type-is-json.ts';
import { check as encodingDoesNotMatter } from './encoding-does-not-matter.ts';
import { check as eventDocumentsAgree } from './event-documents-agree.ts';
import { check as eventIdsAre32Hex } from './event-ids-are-32-hex.ts';
import { check as getAndPostAgree } from './get-and-post-agree.ts';
import { check as histogramAgreesWithEvaluate } from './histogram-agrees-with-evaluate.ts';
import { check as histogramCountsAreBounded } from './histogram-counts-are-bounded.ts';
import { check as histogramOrderedByCount } from './histogram-ordered-by-count.ts';
import { check as hotEventsMatchDate } from './hot-events-match-date.ts';
import { check as interpretTimeoutHonoured } from './interpret-timeout-honoured.ts';
import { check as interpretationOutputMatchesParse } from './interpretation-output-matches-parse.ts';
import { check as interpretationsAreEvaluable } from './interpretations-are-evaluable.ts';
import { check as interpretationsOrderedByProb } from './interpretations-ordered-by-prob.ts';
import { check as invalidParameterRejected } from './invalid-parameter-rejected.ts';
import { check as latencyWithinBudget } from './latency-within-budget.ts';
import { check as missingParameterRejected } from './missing-parameter-rejected.ts';
import { check as modelDefaultsToLatest } from './model-defaults-to-latest.ts';
import { check as negativeInputRejected } from './negative-input-rejected.ts';
import { check as noServerError } from './no-server-error.ts';
import { check as orderbyIsHonoured } from './orderby-is-honoured.ts';
import { check as pagingIsConsistent } from './paging-is-consistent.ts';
import { check as pagingRejectsInvalid } from './paging-rejects-invalid.ts';
import { check as pagingRespectsSize } from './paging-respects-size.ts';
import { check as positiveInputAccepted } from './positive-input-accepted.ts';
import { check as quotaExhaustedIs403 } from './quota-exhausted-is-403.ts';
import { check as rankingReferencesResolve } from './ranking-references-resolve.ts';
import { check as rateLimitSignalled } from './rate-limit-signalled.ts';
import type { Check } from './registry.ts';
import { check as relatedEventsOrderedByTime } from './related-events-ordered-by-time.ts';
import { check as requestIsEchoed } from './request-is-echoed.ts';
import { check as respondsWithinTimeout } from './responds-within-timeout.ts';
import { check as responseIsFramed } from './response-is-framed.ts';
import { check as responseMatchesSpec } from './response-matches-spec.ts';
import { check as resultsMatchExpr } from './results-match-expr.ts';
import { check as similarityIsSymmetric } from './similarity-is-symmetric.ts';
import { check as similarityOfIdenticalIsOne } from './similarity-of-identical-is-one.ts';
import { check as unknownEventIs404 } from './unknown-event-is-404.ts';

/** Every check of the suite, in report order: transport and schema first, then auth, errors, paging, ordering, semantics, time, generated requests, rate limit. */
export const CHECKS: readonly Check[] = [
  responseMatchesSpec,
  contentTypeIsJson,
  bodyIsJson,
  respondsWithinTimeout,
  connectionCompletes,
  bodyWithinSizeCap,
  latencyWithinBudget,
  responseIsFramed,
  authRequired,
  authRequiresSubscription,
  quotaExhaustedIs403,
  missingParameterRejected,
  invalidParameterRejected,
  unknownEventIs404,
  pagingRespectsSize,
  pagingIsConsistent,
  pagingRejectsInvalid,
  interpretationsOrderedByProb,
  orderbyIsHonoured,
  relatedEventsOrderedByTime,
  hotEventsMatchDate,
  histogramOrderedByCount,
  histogramCountsAreBounded,
  requestIsEchoed,
  attributesAreHonoured,
  resultsMatchExpr,
  interpretationOutputMatchesParse,
  interpretationsAreEvaluable,
  histogramAgreesWithEvaluate,
  similarityIsSymmetric,
  similarityOfIdenticalIsOne,
  getAndPostAgree,
  modelDefaultsToLatest,
  encodingDoesNotMatter,
  rankingReferencesResolve,
  eventDocumentsAgree,
  eventIdsAre32Hex,
  interpretTimeoutHonoured,
  bodyLimitEnforced,
  noServerError,
  positiveInputAccepted,
  negativeInputRejected,
  rateLimitSignalled,
];

/** Check ids in report order. */
export const CHECK_IDS: readonly string[] = CHECKS.map((check) => check.id);

/** Fixture checks: applied by the request fixture to every response (their cells are filled by findings). */
export const FIXTURE_CHECKS: ReadonlySet<string> = new Set(
  CHECKS.filter((check) => check.kind === 'fixture').map((check) => check.id),
);

/** Generative checks: they judge generated requests (their tests exist only when the run has a generative phase). */
export const GENERATIVE_CHECK_IDS: readonly string[] = CHECKS.filter((check) => check.kind === 'generative').map(
  (check) => check.id,
);

/** Looks a check up by id. */
export function getCheck(id: string): Check | undefined {
  return CHECKS.find((check) => check.id === id);
}

/** The test titles that exercise the given checks: a check's own test, or for a check only the request fixture applies, every valid-request test. */
export function testsExercising(ids: readonly string[]): string[] {
  return [...new Set(ids.map((id) => (getCheck(id)?.run ? id : 'response-matches-spec')))];
}
