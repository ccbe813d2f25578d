// Properties: named predicates over a request and what came back, with the id of the check they
// belong to. The same predicate judges a fixed test's answer and every generated valid request.
import type { Agreement } from './tolerance.ts';

/** One request and its answer, as a property reads it. */
export interface Exchange {
  operationId: string;
  /** The request's parameters, decoded (query or form fields; the last of a repeated name wins). */
  params: Record<string, string>;
  pathParams: Record<string, string>;
  status: number;
  json: unknown;
}

/** What a property found wrong: a fixed short title, what came back, what the interface says. */
export interface Violation {
  title: string;
  received: string;
  documented: string;
  pointer?: string;
  /** Behaviour the real service showed that a strict reading fails (facts.md): a warning unless --strict. */
  warn?: boolean;
}

/** A property judged from one answer alone (an invariant). */
export interface ResponseProperty {
  /** The id of the check the property belongs to. */
  check: string;
  /** What it claims, one line (for the READMEs). */
  claims: string;
  appliesTo(operationId: string): boolean;
  /** Whether the answer carries what the property reads, so that judging it can show a defect (a 200 with the parameters and items it needs). */
  reads(exchange: Exchange): boolean;
  judge(exchange: Exchange): readonly Violation[];
}

/** Another request's answer, read by a relation. */
export interface Reply {
  operationId: string;
  status: number;
  json: unknown;
  curl: string;
}

/** A request a relation sends (parameters as the GET query or the form body). */
export interface RelationRequest {
  params: Record<string, string>;
  pathParams?: Record<string, string>;
  /** Written with every byte escaped (%xx, lower-case hex) instead of the usual form encoding. */
  escaped?: boolean;
}

/** Sends a relation's requests; undefined when no usable answer came (a transport failure: the fixture reports it). */
export type Send = (operationId: string, request: RelationRequest) => Promise<Reply | undefined>;

/** A relation's finding; `operationId` when it belongs to another operation than the exchange's. */
export type RelationViolation = Violation & { operationId?: string };

/**
 * A metamorphic relation or a chain across operations: a property judged by sending related
 * requests (a larger page, the GET twin, the swapped inputs, the next operation of a chain).
 */
export interface Relation {
  check: string;
  /** The relation, as named in a failure: `page(count=c, offset=o) = page(count=o+c+2)[o, o+c)`. */
  name: string;
  /** The operations whose answers it starts from. */
  operations: readonly string[];
  /** The other operations it reads. */
  reads: readonly string[];
  /** Whether the exchange can start the relation (a 200 with what the relation needs). */
  appliesTo(exchange: Exchange): boolean;
  /** Higher first when only some exchanges can be related within the request budget. */
  priority(exchange: Exchange): number;
  /** At most this many per operation, whatever the run's budget allows (a cheap relation may not need more). */
  limit?: number;
  /**
   * Whether relating this exchange can show what the check's own test shows (a page past the first,
   * with items): only then does it judge the check's cell for the coverage plan. Absent: always.
   */
  decisive?(exchange: Exchange): boolean;
  /** `record` hears every comparison of numbers the relation made and the tolerance it used (for the summary). */
  run(exchange: Exchange, send: Send, record?: (agreement: Agreement) => void): Promise<RelationViolation[]>;
}
