import { CHECKS } from '../contracts/checks/index.ts';
import { OPERATIONS } from '../openapi/spec.ts';

/** What the fault sweep expects of one fault of the reference server's catalogue. */
export interface FaultEntry {
  /**
   * Checks that must report the fault, each on an operation the fault touches and for the fault's
   * own reason (the check's assertion, or the request fixture for a fixture check). Empty for
   * `drift`, `real` and `release` faults: conform must pass them.
   */
  catches: readonly string[];
  /** The operations the fault touches (the catalogue says the same; the sweep checks they agree). */
  touches: readonly string[];
  /**
   * An input-triggered fault: only some inputs show it. The sweep requires the fixed battery alone
   * (`--generate 0`) to pass it and the generative phase to catch it.
   */
  generative?: true;
  /**
   * Triggered only by a request of the fixed battery that another check's test sends: the sweep
   * judges it with `--generate 0`, so the property judging that answer must catch it alone.
   */
  fixedBattery?: true;
  /**
   * The fault breaks one promise, and only the checks it names may see it: the sweep requires every
   * failed cell, on every operation, to be one of theirs (a fault of a promise PROMISES.md traces).
   */
  only?: true;
}

const INTERPRET = ['interpretGet', 'interpretPost'];
const EVALUATE = ['evaluateGet', 'evaluatePost'];
const CALCHISTOGRAM = ['calchistogramGet', 'calchistogramPost'];
const SIMILARITY = ['similarityGet', 'similarityPost'];
const ACADEMIC_SEARCH = [...INTERPRET, ...EVALUATE, ...CALCHISTOGRAM];
const EVENT_KNOWLEDGE = ['hotEvents', 'relatedEvents', 'eventDocuments'];
const ALL = OPERATIONS.map((op) => op.operationId as string);

/**
 * Every fault of the catalogue: the checks that must catch it and the operations it touches. A
 * forbidden fault may fail checks of the operations it touches and the cross-operation checks
 * that read them (`crossReaders`), and nothing else. The sweep fails when the catalogue has a
 * fault this table does not know, when an entry's operations disagree with the catalogue, or when
 * a registered check is caught by no fault.
 */
export const FAULT_TABLE: Record<string, FaultEntry> = {
  'interpret-prob-missing': { catches: ['response-matches-spec'], touches: INTERPRET },
  'interpret-not-sorted-by-prob': { catches: ['interpretations-ordered-by-prob'], touches: INTERPRET },
  'interpret-count-ignored': { catches: ['paging-respects-size'], touches: INTERPRET },
  'interpret-offset-ignored': { catches: ['paging-is-consistent'], touches: INTERPRET },
  'interpret-query-not-echoed': { catches: ['request-is-echoed'], touches: INTERPRET },
  'interpret-output-rejected-by-evaluate': { catches: ['interpretations-are-evaluable'], touches: INTERPRET },
  'interpret-timeout-ignored': { catches: ['interpret-timeout-honoured'], touches: INTERPRET },
  'interpret-aborted-not-boolean': { catches: ['response-matches-spec'], touches: INTERPRET },
  'interpret-post-ignores-offset': { catches: ['get-and-post-agree'], touches: ['interpretPost'] },
  'evaluate-entity-prob-missing': { catches: ['response-matches-spec'], touches: EVALUATE },
  'evaluate-year-as-string': { catches: ['response-matches-spec'], touches: EVALUATE },
  'evaluate-offset-off-by-one': { catches: ['paging-is-consistent'], touches: EVALUATE },
  'evaluate-count-ignored': { catches: ['paging-respects-size'], touches: EVALUATE },
  'evaluate-orderby-ignored': { catches: ['orderby-is-honoured'], touches: EVALUATE },
  'evaluate-orderby-reversed': { catches: ['orderby-is-honoured'], touches: EVALUATE },
  'evaluate-attributes-ignored': { catches: ['attributes-are-honoured'], touches: EVALUATE },
  'evaluate-attributes-case-insensitive': { catches: ['attributes-are-honoured'], touches: EVALUATE },
  'evaluate-expr-not-echoed': { catches: ['request-is-echoed'], touches: EVALUATE },
  'evaluate-aborted-as-string': { catches: ['response-matches-spec'], touches: EVALUATE },
  'evaluate-post-ignores-offset': { catches: ['get-and-post-agree'], touches: ['evaluatePost'] },
  'calchistogram-not-sorted-by-count': { catches: ['histogram-ordered-by-count'], touches: CALCHISTOGRAM },
  'calchistogram-num-entities-off-by-one': { catches: ['histogram-agrees-with-evaluate'], touches: CALCHISTOGRAM },
  'calchistogram-total-count-off-by-one': { catches: ['histogram-agrees-with-evaluate'], touches: CALCHISTOGRAM },
  'calchistogram-distinct-values-off-by-one': { catches: ['histogram-agrees-with-evaluate'], touches: CALCHISTOGRAM },
  'calchistogram-count-as-string': { catches: ['response-matches-spec'], touches: CALCHISTOGRAM },
  'calchistogram-expr-not-echoed': { catches: ['request-is-echoed'], touches: CALCHISTOGRAM },
  'calchistogram-count-ignored': { catches: ['paging-respects-size'], touches: CALCHISTOGRAM },
  'calchistogram-post-ignores-count': { catches: ['get-and-post-agree'], touches: ['calchistogramPost'] },
  'interpret-missing-query-accepted': { catches: ['missing-parameter-rejected'], touches: INTERPRET },
  'evaluate-invalid-count-accepted': { catches: ['paging-rejects-invalid'], touches: EVALUATE },
  'interpret-401-wrong-code': { catches: ['response-matches-spec'], touches: INTERPRET },
  'academic-400-code-not-bad-argument': { catches: ['response-matches-spec'], touches: ACADEMIC_SEARCH },
  'academic-400-message-only': { catches: ['response-matches-spec'], touches: ACADEMIC_SEARCH },
  'similarity-asymmetric': { catches: ['similarity-is-symmetric'], touches: SIMILARITY },
  'similarity-out-of-range': { catches: ['response-matches-spec'], touches: SIMILARITY },
  'similarity-self-not-one': { catches: ['similarity-of-identical-is-one'], touches: SIMILARITY },
  'similarity-post-differs': { catches: ['get-and-post-agree'], touches: ['similarityPost'] },
  'similarity-as-string': { catches: ['response-matches-spec'], touches: SIMILARITY },
  'similarity-no-body-limit': { catches: ['body-limit-enforced'], touches: ['similarityPost'] },
  'similarity-body-limit-too-small': { catches: ['body-limit-enforced'], touches: ['similarityPost'] },
  'similarity-body-limit-413': { catches: ['body-limit-enforced'], touches: ['similarityPost'] },
  'similarity-body-limit-500': { catches: ['body-limit-enforced'], touches: ['similarityPost'] },
  'answersearch-webpage-url-missing': { catches: ['response-matches-spec'], touches: ['answerSearch'] },
  'answersearch-total-matches-as-string': { catches: ['response-matches-spec'], touches: ['answerSearch'] },
  'answersearch-offset-off-by-one': { catches: ['paging-is-consistent'], touches: ['answerSearch'] },
  'answersearch-offset-ignored': { catches: ['paging-is-consistent'], touches: ['answerSearch'] },
  'answersearch-count-ignored': { catches: ['paging-respects-size'], touches: ['answerSearch'] },
  'answersearch-invalid-offset-accepted': { catches: ['paging-rejects-invalid'], touches: ['answerSearch'] },
  'answersearch-missing-mkt-accepted': { catches: ['missing-parameter-rejected'], touches: ['answerSearch'] },
  'answersearch-400-no-parameter': { catches: ['response-matches-spec'], touches: ['answerSearch'] },
  'answersearch-400-wrong-parameter': { catches: ['missing-parameter-rejected'], touches: ['answerSearch'] },
  'answersearch-401-academic-shape': { catches: ['response-matches-spec'], touches: ['answerSearch'] },
  'rate-limit-disabled': { catches: ['rate-limit-signalled'], touches: ['answerSearch', 'urlPreview'] },
  'answersearch-503-unavailable': { catches: ['response-matches-spec'], touches: ['answerSearch'] },
  'answersearch-429-no-seconds': { catches: ['response-matches-spec'], touches: ['answerSearch'] },
  'answersearch-429-wrong-shape': { catches: ['response-matches-spec'], touches: ['answerSearch'] },
  'answersearch-ranking-dangling-index': { catches: ['ranking-references-resolve'], touches: ['answerSearch'] },
  'answersearch-ranking-dangling-id': { catches: ['ranking-references-resolve'], touches: ['answerSearch'] },
  'answersearch-webpage-id-malformed': { catches: ['response-matches-spec'], touches: ['answerSearch'] },
  'answersearch-entity-bingid-not-uuid': { catches: ['response-matches-spec'], touches: ['answerSearch'] },
  'answersearch-date-last-crawled-not-utc': { catches: ['response-matches-spec'], touches: ['answerSearch'] },
  'urlpreview-invalid-url-accepted': { catches: ['invalid-parameter-rejected'], touches: ['urlPreview'] },
  'urlpreview-content-type-html': { catches: ['content-type-is-json'], touches: ['urlPreview'] },
  'urlpreview-image-missing': { catches: ['response-matches-spec'], touches: ['urlPreview'] },
  'urlpreview-400-academic-shape': { catches: ['response-matches-spec'], touches: ['urlPreview'] },
  'urlpreview-exhausted-key-429': { catches: ['quota-exhausted-is-403'], touches: ['urlPreview'] },
  'urlpreview-429-no-recovery': { catches: ['rate-limit-signalled'], touches: ['urlPreview'] },
  'hotevents-top-ignored': { catches: ['paging-respects-size'], touches: ['hotEvents'] },
  'relatedevents-skip-off-by-one': { catches: ['paging-is-consistent'], touches: ['relatedEvents'] },
  'eventdocuments-skip-ignored': { catches: ['paging-is-consistent'], touches: ['eventDocuments'] },
  'eventknowledge-no-404': { catches: ['unknown-event-is-404'], touches: ['eventDocuments'] },
  'eventknowledge-404-wrong-shape': { catches: ['response-matches-spec'], touches: ['eventDocuments'] },
  'hotevents-top-document-missing': { catches: ['response-matches-spec'], touches: ['hotEvents'] },
  'hotevents-document-count-as-string': { catches: ['response-matches-spec'], touches: ['hotEvents'] },
  'relatedevents-not-monotonic': { catches: ['related-events-ordered-by-time'], touches: ['relatedEvents'] },
  'hotevents-date-ignored': { catches: ['hot-events-match-date'], touches: ['hotEvents'] },
  'eventknowledge-event-id-not-hex': { catches: ['event-ids-are-32-hex'], touches: EVENT_KNOWLEDGE },
  'eventdocuments-publish-date-not-iso': { catches: ['response-matches-spec'], touches: ['eventDocuments'] },
  'relatedevents-time-not-utc': { catches: ['response-matches-spec'], touches: ['relatedEvents'] },
  'relatedevents-time-minus-zero': { catches: ['response-matches-spec'], touches: ['relatedEvents'] },
  'eventdocuments-local-time-off-hottest': {
    catches: ['response-matches-spec'],
    touches: ['eventDocuments'],
    generative: true,
  },
  'evaluate-wide-or-500': { catches: ['no-server-error'], touches: EVALUATE, generative: true },
  'calchistogram-date-range-hang': { catches: ['responds-within-timeout'], touches: CALCHISTOGRAM, generative: true },
  'evaluate-uppercase-boolean-rejected': { catches: ['positive-input-accepted'], touches: EVALUATE, generative: true },
  'evaluate-wrong-case-attribute-accepted': {
    catches: ['negative-input-rejected'],
    touches: EVALUATE,
    generative: true,
  },
  'interpret-non-ascii-500': { catches: ['no-server-error'], touches: INTERPRET, generative: true },
  'similarity-punctuation-rejected': { catches: ['positive-input-accepted'], touches: SIMILARITY, generative: true },
  'similarity-get-long-text-500': { catches: ['no-server-error'], touches: ['similarityGet'], generative: true },
  'answersearch-fractional-count-accepted': {
    catches: ['negative-input-rejected'],
    touches: ['answerSearch'],
    generative: true,
  },
  'answersearch-long-query-500': { catches: ['no-server-error'], touches: ['answerSearch'], generative: true },
  'urlpreview-malformed-url-accepted': {
    catches: ['negative-input-rejected'],
    touches: ['urlPreview'],
    generative: true,
  },
  'hotevents-day-31-accepted': { catches: ['negative-input-rejected'], touches: ['hotEvents'], generative: true },
  'relatedevents-non-ascii-500': { catches: ['no-server-error'], touches: ['relatedEvents'], generative: true },
  'hotevents-top-zero-hang': { catches: ['responds-within-timeout'], touches: ['hotEvents'], generative: true },
  'interpret-count-ignored-complete-0': { catches: ['paging-respects-size'], touches: INTERPRET, generative: true },
  'evaluate-offset-skips-one-from-5': { catches: ['paging-is-consistent'], touches: EVALUATE, generative: true },
  'evaluate-orderby-cc-ignored': { catches: ['orderby-is-honoured'], touches: EVALUATE, generative: true },
  'evaluate-long-expr-echo-cut': { catches: ['request-is-echoed'], touches: EVALUATE, generative: true },
  'calchistogram-or-num-entities-off': {
    catches: ['histogram-agrees-with-evaluate'],
    touches: CALCHISTOGRAM,
    generative: true,
  },
  'calchistogram-author-distinct-values-one': {
    catches: ['histogram-counts-are-bounded'],
    touches: CALCHISTOGRAM,
    generative: true,
  },
  'similarity-asymmetric-for-long-s1': { catches: ['similarity-is-symmetric'], touches: SIMILARITY, generative: true },
  'similarity-post-long-differs': { catches: ['get-and-post-agree'], touches: ['similarityPost'], generative: true },
  'answersearch-strict-500': { catches: ['no-server-error'], touches: ['answerSearch'], generative: true },
  'evaluate-large-page-attributes-ignored': {
    catches: ['attributes-are-honoured'],
    touches: EVALUATE,
    fixedBattery: true,
  },
  'hotevents-top-document-foreign': { catches: ['event-documents-agree'], touches: ['hotEvents'], generative: true },
  'answersearch-lowercase-escapes-undecoded': { catches: ['encoding-does-not-matter'], touches: ['answerSearch'] },
  'interpret-combining-mark-500': { catches: ['no-server-error'], touches: INTERPRET, generative: true },
  'interpret-apostrophe-500': { catches: ['no-server-error'], touches: INTERPRET, generative: true },
  'evaluate-cjk-value-rejected': { catches: ['positive-input-accepted'], touches: EVALUATE, generative: true },
  'evaluate-quoted-parenthesis-rejected': { catches: ['positive-input-accepted'], touches: EVALUATE, generative: true },
  'evaluate-capitalized-value-500': { catches: ['no-server-error'], touches: EVALUATE, generative: true },
  'calchistogram-right-to-left-500': { catches: ['no-server-error'], touches: CALCHISTOGRAM, generative: true },
  'similarity-line-break-500': { catches: ['no-server-error'], touches: SIMILARITY, generative: true },
  'answersearch-emoji-500': { catches: ['no-server-error'], touches: ['answerSearch'], generative: true },
  'answersearch-padded-query-rejected': {
    catches: ['positive-input-accepted'],
    touches: ['answerSearch'],
    generative: true,
  },
  'answersearch-market-case-500': { catches: ['no-server-error'], touches: ['answerSearch'], generative: true },
  'urlpreview-port-500': { catches: ['no-server-error'], touches: ['urlPreview'], generative: true },
  'relatedevents-punctuated-id-rejected': {
    catches: ['positive-input-accepted'],
    touches: ['relatedEvents'],
    generative: true,
  },
  'hotevents-century-year-500': { catches: ['no-server-error'], touches: ['hotEvents'], generative: true },
  'evaluate-prob-above-one-by-citations': { catches: ['response-matches-spec'], touches: EVALUATE, generative: true },
  'calchistogram-venue-prob-above-one': {
    catches: ['response-matches-spec'],
    touches: CALCHISTOGRAM,
    generative: true,
  },
  'interpret-prob-above-one-without-completion': {
    catches: ['response-matches-spec'],
    touches: INTERPRET,
    generative: true,
  },
  'similarity-cjk-above-one': { catches: ['response-matches-spec'], touches: SIMILARITY, generative: true },
  'answersearch-negative-estimate-non-ascii': {
    catches: ['response-matches-spec'],
    touches: ['answerSearch'],
    generative: true,
  },
  'evaluate-year-range-end-ignored': { catches: ['results-match-expr'], touches: EVALUATE, generative: true },
  'interpret-output-drops-year': {
    catches: ['interpretation-output-matches-parse'],
    touches: INTERPRET,
    generative: true,
  },
  'interpret-output-not-canonical': { catches: ['interpretation-output-matches-parse'], touches: INTERPRET },
  'interpret-rule-name-differs-for-initials': {
    catches: ['interpretation-output-matches-parse'],
    touches: INTERPRET,
    generative: true,
  },
  'calchistogram-count-ignored-after-first': { catches: ['paging-respects-size'], touches: CALCHISTOGRAM, only: true },
  'calchistogram-offset-ignored-after-first': { catches: ['paging-is-consistent'], touches: CALCHISTOGRAM, only: true },
  'calchistogram-composite-distinct-values-off-by-one': {
    catches: ['histogram-agrees-with-evaluate'],
    touches: CALCHISTOGRAM,
    only: true,
  },
  'calchistogram-entry-prob-mean': { catches: ['histogram-agrees-with-evaluate'], touches: CALCHISTOGRAM, only: true },
  'calchistogram-last-attribute-dropped': { catches: ['attributes-are-honoured'], touches: CALCHISTOGRAM, only: true },
  'interpret-later-outputs-rejected-by-evaluate': {
    catches: ['interpretations-are-evaluable'],
    touches: INTERPRET,
    only: true,
  },
  'interpret-parse-attr-unprefixed': {
    catches: ['interpretation-output-matches-parse'],
    touches: INTERPRET,
    only: true,
  },
  'academic-default-model-not-latest': {
    catches: ['model-defaults-to-latest'],
    touches: [...EVALUATE, ...CALCHISTOGRAM],
    only: true,
  },
  'hotevents-top-document-oldest': { catches: ['event-documents-agree'], touches: ['hotEvents'], only: true },
  'hotevents-document-count-off-for-second': {
    catches: ['event-documents-agree'],
    touches: ['hotEvents'],
    generative: true,
    only: true,
  },
  'evaluate-offset-from-100-skips-one': {
    catches: ['paging-is-consistent'],
    touches: EVALUATE,
    generative: true,
    only: true,
  },
  'similarity-self-not-one-for-long-texts': {
    catches: ['similarity-of-identical-is-one'],
    touches: SIMILARITY,
    generative: true,
    only: true,
  },
  // The classes of the coverage model (reference/faults/classes.ts): each caught on the generated request carrying its class.
  'answersearch-other-script-500': { catches: ['no-server-error'], touches: ['answerSearch'], generative: true },
  'similarity-symbol-500': { catches: ['no-server-error'], touches: ['similarityGet'], generative: true },
  'interpret-quotes-500': { catches: ['no-server-error'], touches: ['interpretGet'], generative: true },
  'answersearch-invisible-rejected': {
    catches: ['positive-input-accepted'],
    touches: ['answerSearch'],
    generative: true,
  },
  'similarity-astral-500': { catches: ['no-server-error'], touches: ['similarityPost'], generative: true },
  'interpret-full-width-500': { catches: ['no-server-error'], touches: ['interpretPost'], generative: true },
  'answersearch-plus-read-as-space': { catches: ['request-is-echoed'], touches: ['answerSearch'], generative: true },
  'similarity-form-delimiters-500': { catches: ['no-server-error'], touches: ['similarityGet'], generative: true },
  'interpret-hash-500': { catches: ['no-server-error'], touches: ['interpretGet'], generative: true },
  'answersearch-semicolon-500': { catches: ['no-server-error'], touches: ['answerSearch'], generative: true },
  'interpret-tilde-asterisk-500': { catches: ['no-server-error'], touches: ['interpretPost'], generative: true },
  'interpret-only-digits-500': { catches: ['no-server-error'], touches: ['interpretGet'], generative: true },
  'answersearch-only-punctuation-rejected': {
    catches: ['positive-input-accepted'],
    touches: ['answerSearch'],
    generative: true,
  },
  'evaluate-other-script-value-500': { catches: ['no-server-error'], touches: ['evaluateGet'], generative: true },
  'calchistogram-symbol-value-500': { catches: ['no-server-error'], touches: ['calchistogramGet'], generative: true },
  'evaluate-invisible-value-rejected': {
    catches: ['positive-input-accepted'],
    touches: ['evaluatePost'],
    generative: true,
  },
  'calchistogram-astral-value-500': { catches: ['no-server-error'], touches: ['calchistogramPost'], generative: true },
  'evaluate-full-width-value-500': { catches: ['no-server-error'], touches: ['evaluateGet'], generative: true },
  'hotevents-leading-zeros-500': { catches: ['no-server-error'], touches: ['hotEvents'], generative: true },
  'answersearch-leading-zeros-not-found': {
    catches: ['negative-input-rejected'],
    touches: ['answerSearch'],
    generative: true,
  },
  'answersearch-plus-sign-count-500': { catches: ['no-server-error'], touches: ['answerSearch'], generative: true },
  'evaluate-exponent-count-misread': { catches: ['paging-respects-size'], touches: ['evaluateGet'], generative: true },
  'relatedevents-point-zero-500': { catches: ['no-server-error'], touches: ['relatedEvents'], generative: true },
  'eventdocuments-white-space-number-500': {
    catches: ['no-server-error'],
    touches: ['eventDocuments'],
    generative: true,
  },
  'interpret-negative-zero-500': { catches: ['no-server-error'], touches: ['interpretGet'], generative: true },
  'calchistogram-other-digits-500': { catches: ['no-server-error'], touches: ['calchistogramGet'], generative: true },
  'answersearch-offset-beyond-int32-500': { catches: ['no-server-error'], touches: ['answerSearch'], generative: true },
  'hotevents-skip-beyond-safe-integer-500': { catches: ['no-server-error'], touches: ['hotEvents'], generative: true },
  'evaluate-spaced-attributes-500': { catches: ['no-server-error'], touches: ['evaluateGet'], generative: true },
  'calchistogram-trailing-comma-attributes-500': {
    catches: ['no-server-error'],
    touches: ['calchistogramGet'],
    generative: true,
  },
  'evaluate-orderby-title-500': { catches: ['no-server-error'], touches: ['evaluateGet'], generative: true },
  'evaluate-orderby-id-500': { catches: ['no-server-error'], touches: ['evaluatePost'], generative: true },
  'calchistogram-model-case-500': { catches: ['no-server-error'], touches: ['calchistogramPost'], generative: true },
  'answersearch-market-script-500': { catches: ['no-server-error'], touches: ['answerSearch'], generative: true },
  'answersearch-market-region-500': { catches: ['no-server-error'], touches: ['answerSearch'], generative: true },
  'answersearch-posix-locale-accepted': {
    catches: ['negative-input-rejected'],
    touches: ['answerSearch'],
    generative: true,
  },
  'answersearch-language-only-accepted': {
    catches: ['negative-input-rejected'],
    touches: ['answerSearch'],
    generative: true,
  },
  'urlpreview-ip-host-500': { catches: ['no-server-error'], touches: ['urlPreview'], generative: true },
  'urlpreview-userinfo-500': { catches: ['no-server-error'], touches: ['urlPreview'], generative: true },
  'urlpreview-dot-segments-500': { catches: ['no-server-error'], touches: ['urlPreview'], generative: true },
  'urlpreview-upper-case-url-500': { catches: ['no-server-error'], touches: ['urlPreview'], generative: true },
  'urlpreview-backslash-500': { catches: ['no-server-error'], touches: ['urlPreview'], generative: true },
  'hotevents-epoch-500': { catches: ['no-server-error'], touches: ['hotEvents'], generative: true },
  'hotevents-before-epoch-500': { catches: ['no-server-error'], touches: ['hotEvents'], generative: true },
  'hotevents-y2038-500': { catches: ['no-server-error'], touches: ['hotEvents'], generative: true },
  'hotevents-early-year-500': { catches: ['no-server-error'], touches: ['hotEvents'], generative: true },
  'hotevents-year-9999-500': { catches: ['no-server-error'], touches: ['hotEvents'], generative: true },
  'hotevents-year-zero-500': { catches: ['no-server-error'], touches: ['hotEvents'], generative: true },
  'hotevents-padded-date-500': { catches: ['no-server-error'], touches: ['hotEvents'], generative: true },
  'hotevents-week-date-accepted': { catches: ['negative-input-rejected'], touches: ['hotEvents'], generative: true },
  'hotevents-ordinal-date-accepted': { catches: ['negative-input-rejected'], touches: ['hotEvents'], generative: true },
  'hotevents-expanded-year-accepted': {
    catches: ['negative-input-rejected'],
    touches: ['hotEvents'],
    generative: true,
  },
  'relatedevents-spaced-id-500': { catches: ['no-server-error'], touches: ['relatedEvents'], generative: true },
  'eventdocuments-escaped-id-not-found': {
    catches: ['positive-input-accepted'],
    touches: ['eventDocuments'],
    generative: true,
  },
  'eventdocuments-upper-case-id-500': { catches: ['no-server-error'], touches: ['eventDocuments'], generative: true },
  'eventdocuments-segment-delimiters-500': {
    catches: ['no-server-error'],
    touches: ['eventDocuments'],
    generative: true,
  },
  'interpret-empty-pairs-rejected': {
    catches: ['positive-input-accepted'],
    touches: ['interpretGet'],
    generative: true,
  },
  'answersearch-empty-value-500': { catches: ['no-server-error'], touches: ['answerSearch'], generative: true },
  'similarity-escaped-body-500': { catches: ['no-server-error'], touches: ['similarityPost'], generative: true },
  'evaluate-content-type-charset-rejected': {
    catches: ['positive-input-accepted'],
    touches: ['evaluatePost'],
    generative: true,
  },
  'interpret-content-type-case-rejected': {
    catches: ['positive-input-accepted'],
    touches: ['interpretPost'],
    generative: true,
  },
  'calchistogram-quoted-charset-500': {
    catches: ['no-server-error'],
    touches: ['calchistogramPost'],
    generative: true,
  },
  'similarity-no-content-type-500': { catches: ['no-server-error'], touches: ['similarityPost'], generative: true },
  'interpret-text-plain-500': { catches: ['no-server-error'], touches: ['interpretPost'], generative: true },
  'hotevents-lower-case-key-name-401': {
    catches: ['positive-input-accepted'],
    touches: ['hotEvents'],
    generative: true,
  },
  'urlpreview-upper-case-key-name-401': {
    catches: ['positive-input-accepted'],
    touches: ['urlPreview'],
    generative: true,
  },
  'relatedevents-accept-any-406': {
    catches: ['positive-input-accepted'],
    touches: ['relatedEvents'],
    generative: true,
  },
  'hotevents-accept-list-500': { catches: ['no-server-error'], touches: ['hotEvents'], generative: true },
  'answersearch-browser-accept-html': {
    catches: ['content-type-is-json'],
    touches: ['answerSearch'],
    generative: true,
  },
  'auth-not-enforced-evaluate-post': { catches: ['auth-required'], touches: ['evaluatePost'] },
  'auth-not-enforced-similarity-get': { catches: ['auth-required'], touches: ['similarityGet'] },
  'auth-not-enforced-answersearch': { catches: ['auth-required'], touches: ['answerSearch'] },
  'auth-not-enforced-urlpreview': { catches: ['auth-required'], touches: ['urlPreview'] },
  'auth-not-enforced-hotevents': { catches: ['auth-required'], touches: ['hotEvents'] },
  'auth-unsubscribed-accepted-answersearch': { catches: ['auth-requires-subscription'], touches: ['answerSearch'] },
  'auth-unsubscribed-accepted-relatedevents': { catches: ['auth-requires-subscription'], touches: ['relatedEvents'] },
  'quota-not-enforced': { catches: ['quota-exhausted-is-403'], touches: ALL },
  'evaluate-exhausted-key-401': { catches: ['quota-exhausted-is-403'], touches: EVALUATE },
  'interpret-extra-logprob': { catches: [], touches: INTERPRET },
  'evaluate-extra-timed-out': { catches: [], touches: EVALUATE },
  'answersearch-webpage-extra-property': { catches: [], touches: ['answerSearch'] },
  'answersearch-new-contractual-rule-type': { catches: [], touches: ['answerSearch'] },
  'answersearch-ranking-news-answer-type': { catches: [], touches: ['answerSearch'] },
  'urlpreview-extra-field': { catches: [], touches: ['urlPreview'] },
  'hotevents-extra-field': { catches: [], touches: ['hotEvents'] },
  'every-answer-extra-request-id': { catches: [], touches: ALL },
  'real-aborted-omitted': { catches: [], touches: ACADEMIC_SEARCH },
  'real-score-fields': { catches: [], touches: ACADEMIC_SEARCH },
  'real-facts-minimal': { catches: [], touches: ['answerSearch'] },
  'real-ranking-id-path': { catches: [], touches: ['answerSearch'] },
  'real-echo-normalized': { catches: [], touches: INTERPRET },
  'real-headers': { catches: [], touches: ALL },
  'real-exponent-numbers': { catches: [], touches: ACADEMIC_SEARCH },
  'real-profile': { catches: [], touches: ALL },
  'evaluate-slow-40ms': { catches: [], touches: ['evaluateGet'] },
  'answersearch-run-to-run-noise': { catches: [], touches: ['answerSearch'] },
  'academic-scores-last-digits': { catches: [], touches: [...ACADEMIC_SEARCH, ...SIMILARITY] },
  'academic-scores-single-precision': { catches: [], touches: [...ACADEMIC_SEARCH, ...SIMILARITY] },
  'echoes-normalized': { catches: [], touches: [...ACADEMIC_SEARCH, 'answerSearch'] },
  'answersearch-market-case-rejected': { catches: [], touches: ['answerSearch'] },
  'evaluate-capitalized-value-rejected': { catches: [], touches: EVALUATE },
  hang: { catches: ['responds-within-timeout'], touches: ALL },
  reset: { catches: ['connection-completes'], touches: ALL },
  'invalid-json': { catches: ['body-is-json'], touches: ALL },
  'huge-body': { catches: ['body-within-size-cap'], touches: ALL },
  'slow-body': { catches: ['responds-within-timeout'], touches: ALL },
  'evaluate-slow-answers': { catches: ['latency-within-budget'], touches: EVALUATE },
  'evaluate-stray-response': { catches: ['response-is-framed'], touches: EVALUATE },
};

/** One cell of the operation x check matrix. */
export interface MatrixCell {
  operation: string;
  check: string;
}

/**
 * The cross-operation checks that read any of `operations`, as matrix cells: a check declaring
 * `reads(op)` judges those operations' answers on `op` (histogram-agrees-with-evaluate on
 * calchistogram reads evaluate), so a fault of theirs may fail it there.
 */
export function crossReaders(operations: readonly string[]): MatrixCell[] {
  const touched = new Set(operations);
  return OPERATIONS.flatMap((op) =>
    CHECKS.filter((check) => check.appliesTo(op) && (check.reads?.(op) ?? []).some((id) => touched.has(id))).map(
      (check) => ({ operation: op.label, check: check.id }),
    ),
  );
}
