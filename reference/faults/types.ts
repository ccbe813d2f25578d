import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';

/** The API group a fault belongs to; 'all' for faults that cut across every group. */
export type Group = 'academic' | 'similarity' | 'answerSearch' | 'urlPreview' | 'eventKnowledge' | 'all';

/**
 * How a fault deviates: forbidden by the interface, allowed-but-undocumented drift, a broken
 * transport, real: how the real service answered (conforming, and reported by drift), release:
 * a conforming change between releases or from one call to the next (judged by `kgate compare`),
 * or legitimate: a variation of the sibling catalogue `../variations/`, what a standard the
 * interface rests on or one of its own freedoms allows (served under `/variations/<name>`).
 */
export type Deviation = 'forbidden' | 'drift' | 'hostile' | 'real' | 'release' | 'legitimate';

/** What a handler produced: a JSON body (serialized by the server) or a raw body, plus extra headers. */
export interface HandlerResult {
  status: number;
  /** A JSON value; serialized with JSON.stringify unless rawBody is set. */
  body?: unknown;
  /** Sent as is, instead of body. */
  rawBody?: string | Buffer;
  /** Extra response headers (e.g. Retry-After). */
  headers?: Record<string, string>;
  /** Overrides the default `application/json; charset=utf-8`. */
  contentType?: string;
  /** Sent in this many pieces with the chunked transfer coding instead of a Content-Length (RFC 9112, section 7.1). */
  chunks?: number;
  /** How each header field name is written (names are case-insensitive, RFC 9110 section 5.1); default lower case. */
  headerCase?: (name: string) => string;
}

/** One request as the handlers see it, after routing and parameter decoding. */
export interface RequestContext {
  /** Operation id from the spec, e.g. 'evaluateGet', 'similarityPost', 'eventDocuments'. */
  operationId: string;
  /** The operation's group ('academic' for interpret/evaluate/calchistogram, 'similarity' for both similarity ops). */
  group: Exclude<Group, 'all'>;
  method: 'GET' | 'POST';
  /** Merged GET query or decoded POST form fields; a request hook may change them. */
  params: Record<string, string>;
  /**
   * The decoded parameters as the client wrote them, before the server read its integers
   * (`+3`, `007` are read as 3 and 7 in `params`; numbers.ts).
   */
  received: Record<string, string>;
  /** The query string as received, before any decoding ('' when there is none). */
  rawQuery: string;
  /** The path as received, before any decoding (below a fault's or variation's prefix). */
  rawPath: string;
  /** The header fields as received, names as the client wrote them: name, value, name, value... */
  rawHeaders: readonly string[];
  /** A POST's body as received, before any decoding; undefined for a GET. */
  rawBody?: string;
  /** Path parameters, e.g. { event_id } for the documents operation. */
  pathParams: Record<string, string>;
  /** The value of Ocp-Apim-Subscription-Key, if sent. */
  key: string | undefined;
  /** The request headers as received. */
  headers: IncomingHttpHeaders;
  /** Runs another operation of the clean server (no auth, quota or fault) and returns its result. */
  call(
    operationId: string,
    params: Record<string, string>,
    pathParams?: Record<string, string>,
  ): Promise<HandlerResult>;
}

/** Server behaviour a fault may override; the clean server uses the defaults noted on each field. */
export interface ServerSettings {
  /** Requests per second per key on answer search and URL preview (capacity = rate); Infinity disables 429. */
  rateLimit: number;
  /** Similarity POST body limit in bytes; Infinity disables it. */
  bodyLimit: number;
  /** Operation ids (or group names) answered without checking the subscription key. Default []. */
  authExemptOperations: string[];
  /** When false the interpret `timeout` parameter is dropped before the engine sees it. Default true. */
  interpretTimeoutHonoured: boolean;
  /** When false used-up quotas are not answered with 403. Default true. */
  quotaEnforced: boolean;
  /** When false a 429 carries no Retry-After header. Default true. */
  retryAfterHeader: boolean;
  /** Operation ids (or group names) that accept any valid key, subscribed to their API or not. Default []. */
  subscriptionExemptOperations?: string[];
  /** Status of the answer to a similarity POST body over bodyLimit (same body shape as the 400). Default 400. */
  bodyLimitStatus?: number;
}

/** One deliberately broken variant of the reference server, served under `{url}/faults/<name>`. */
export interface Fault {
  /** kebab-case, descriptive, e.g. 'evaluate-offset-off-by-one'. */
  name: string;
  group: Group;
  /** Operation ids the deviation is visible on; hooks and raw apply only to these (an empty list: every operation). */
  operations: string[];
  deviation: Deviation;
  /** One line saying what differs from the clean server. */
  description: string;
  /** Settings overrides; rate-limit buckets are kept per fault, so a fault never shares them with the clean server. */
  settings?: Partial<ServerSettings>;
  /** Runs after auth, quota and rate limit, before the handler; may change ctx.params. */
  request?(ctx: RequestContext): void;
  /** Runs on every result of the fault's operations, including 4xx answers produced by auth, quota, rate limit and limits. */
  response?(ctx: RequestContext, result: HandlerResult): HandlerResult | Promise<HandlerResult>;
  /** Takes over the transport for the fault's operations (after routing, before auth): hang, reset, huge body. */
  raw?(req: IncomingMessage, res: ServerResponse): void;
  /** Called once when the server closes: ends requests a raw hook still holds open and stops its timers. */
  dispose?(): void;
}
