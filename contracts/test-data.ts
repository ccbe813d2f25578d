// The test data the checks read: found on the target itself (run/discovery.ts finds it and shares
// it between the run's workers), so the suite works against any deployment.
import type { Failure } from './failure.ts';

/** A paper entity as evaluate returns it with the discovery attributes (any field may be missing or mistyped). */
export interface DiscoveredPaper {
  Id?: unknown;
  Ti?: unknown;
  Y?: unknown;
  AA?: unknown;
}

/** A trending event as the event operations return it. */
export interface DiscoveredEvent {
  eventId: string;
  relatedEntities: string[];
}

/**
 * Test data could not be found on the target. The test that needed it is skipped with this root
 * cause, never failed; `findings` carries what the request fixture would report about the
 * responses that left discovery empty-handed (a timeout, a body that is not JSON), so the defect is
 * still reported, on its own operation.
 */
export class DataUnavailable extends Error {
  override name = 'DataUnavailable';
  constructor(
    reason: string,
    readonly findings: Failure[] = [],
  ) {
    super(reason);
  }
}

/**
 * What a check may ask of the run's test data. Each item is found once per run; when none can be
 * found, the promise rejects with DataUnavailable naming the root cause.
 */
export interface TestData {
  /** Papers that a broad expression matches, with the discovery attributes. */
  papers(): Promise<DiscoveredPaper[]>;
  /** Entities with every queryable attribute: the values generated requests are built from. */
  paperValues(): Promise<Record<string, unknown>[]>;
  /** An expression every academic deployment should match many papers with. */
  broadExpr(): Promise<string>;
  /** Author names of the papers found. */
  authors(): Promise<string[]>;
  /** An expression that matches a few papers (one author's). */
  narrowExpr(): Promise<string>;
  /** Two titles of papers found, for similarity. */
  titles(): Promise<[string, string]>;
  /** An interpret query and a completion it should be read as. */
  interpretQuery(): Promise<{ query: string; complete: string }>;
  /** A query answer search answers with results. */
  answerQuery(): Promise<string>;
  /** A URL URL preview can preview. */
  previewUrl(): Promise<string>;
  /** A date with trending events, and those events. */
  hotDate(): Promise<{ date: string; events: DiscoveredEvent[] }>;
  /** The id of a trending event. */
  eventId(): Promise<string>;
  /** An encyclopedia id that related events answers for. */
  wikipediaId(): Promise<string>;
}
