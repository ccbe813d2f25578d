import { MASK } from '../config/redact.ts';
import { currentNetwork } from '../http/client.ts';
import { curlHeaderArgs, withoutCredentials } from '../http/headers.ts';
import { curlNetworkArgs } from '../http/network.ts';

/** How much a failed check weighs: `fail` breaks the gate, `warn` only under `--strict`. */
/** The title of the finding of a test that the run's --max-duration ended. */
export const NOT_RUN_DEADLINE = 'not run: deadline';

/** The title of the finding of a test whose own operation kgate gave up on (a hang, broken answers, or slowness). */
export const NOT_RUN_GIVEN_UP = 'not run: given up';

/** The title of the finding of a test whose requests the target throttled at every pace (see http/throttle.ts). */
export const NOT_RUN_THROTTLED = 'not run: throttled';

/** How a test begins its reason when the call volume quota of its key ran out during the run (see http/quota.ts). */
export const NOT_RUN_QUOTA = 'not run: the call volume quota of';

export type Severity = 'fail' | 'warn';

/**
 * Where a finding comes from: `check` (a check's own assertion), `fixture` (the request fixture
 * judging a response: schema, content type, JSON, transport), `error` (the harness itself could
 * not run the check: an exception, a test timeout, or the run's --max-duration) or `not-run` (the
 * check's own operation was given up on, for a hang or for slowness, before the check could judge
 * it). Only `check` and `fixture` findings prove anything about the target; `error` findings are
 * defects of kgate; `not-run` findings fail the gate (a slow target cannot pass checks it was not
 * given) but catch nothing.
 */
export type Origin = 'check' | 'fixture' | 'error' | 'not-run';

/** What a failed check reports: enough to understand and reproduce it without rerunning the suite. */
export interface Failure {
  /** The id of the check that failed, e.g. `paging-is-consistent`. */
  check: string;
  /** The operation label, e.g. `GET /academic/v1.0/evaluate`. */
  operation: string;
  /** A fixed short title: the same for every occurrence of this kind of failure. */
  title: string;
  /** What the target sent. */
  received: string;
  /** What the interface or the spec says. */
  documented: string;
  /** JSON pointer into the body, for schema errors. */
  pointer?: string;
  /** The start of the response body, truncated. */
  excerpt?: string;
  /** A curl line reproducing the request, with the key masked. */
  curl?: string;
  /** `warn`: reported, fails the gate only under --strict. Absent means `fail`. */
  level?: Severity;
  /** Where the finding comes from (see Origin). Absent means `check`. */
  origin?: Origin;
  /** How many tests observed this same finding (set when the summary folds duplicates). */
  occurrences?: number;
  /** The conformance baseline entry that lists this failure (set by the summary). */
  baseline?: { reason: string; expires?: string; expired?: boolean };
  /** For a generated request: the seed and case that produce it again, and the command that does. */
  seed?: string;
  /**
   * `property`: a property judged the answer of a request another test (or discovery, or the
   * generative phase) sent. Where a check's own test reports the same failure (check, operation,
   * title), the summary keeps only the test's: one defect, one failure.
   */
  via?: 'property';
  /** The coverage items (contracts/coverage) the request that showed it carried: what a ledger marks failed. */
  items?: string[];
}

/** Thrown by a check (or by the request fixture) when the target breaks a property. */
export class CheckFailure extends Error {
  override name = 'CheckFailure';
  readonly failure: Failure;

  constructor(failure: Failure) {
    super(formatFailure(failure));
    this.failure = failure;
  }
}

/** Largest body excerpt kept in a failure, in characters. */
export const EXCERPT_LIMIT = 300;

/** Cuts a body to a one-line excerpt of at most `limit` characters, saying how much was dropped. */
export function excerpt(body: string, limit = EXCERPT_LIMIT): string {
  const flat = body.replace(/\s+/g, ' ').trim();
  if (flat.length <= limit) return flat;
  return `${flat.slice(0, limit)}... (${flat.length - limit} more characters)`;
}

/** Renders a failure as the block a person reads in the terminal and in the reports. */
export function formatFailure(failure: Failure): string {
  return formatFailureFolded(failure, (curl) => curl);
}

/**
 * formatFailure with a long curl line shown by `fold`: its start, its length and the file that
 * holds it whole (see page/fold.ts).
 */
export function formatFailureFolded(failure: Failure, fold: (curl: string) => string): string {
  const seen = failure.occurrences && failure.occurrences > 1 ? ` (seen by ${failure.occurrences} tests)` : '';
  const lines = [
    `[${failure.check}] ${failure.operation}: ${failure.title}${seen}`,
    `  received:   ${failure.received}`,
    `  documented: ${failure.documented}`,
  ];
  if (failure.pointer !== undefined) lines.push(`  at:         ${failure.pointer || '/'}`);
  if (failure.excerpt) lines.push(`  body:       ${failure.excerpt}`);
  if (failure.curl) lines.push(`  reproduce:  ${fold(failure.curl)}`);
  if (failure.baseline) {
    const { reason, expires, expired } = failure.baseline;
    const state = expired ? `EXPIRED on ${expires}, fails again` : `known${expires ? ` until ${expires}` : ''}`;
    lines.push(`  baseline:   ${state}: ${reason}`);
  }
  if (failure.seed) lines.push(`  seed:       ${failure.seed}`);
  return lines.join('\n');
}

/** One request as the suite sent it: what a curl line needs. */
export interface SentRequest {
  method: 'GET' | 'POST';
  url: string;
  /** Header name -> value; the subscription key header is always masked in the curl line. */
  headers: Record<string, string>;
  /** The form body of a POST, if any. */
  body?: string;
}

/** Longest body shown inside a curl line; longer bodies are summarised by their size. */
const CURL_BODY_LIMIT = 200;

/**
 * Builds a curl command that reproduces a request, with the subscription key replaced by `***`,
 * along the route kgate took: the proxy (its password masked too) or --noproxy, the CA file and
 * the client certificate; with the headers every request carried (the User-Agent, the user's,
 * secret values as `***`) and the base URL's credentials as `-u 'user:***'`.
 */
export function curlLine(request: SentRequest): string {
  const url = new URL(request.url);
  const parts = ['curl -sS', ...curlNetworkArgs(url, currentNetwork())];
  if (request.method !== 'GET') parts.push(`-X ${request.method}`);
  for (const [name, value] of Object.entries(request.headers)) {
    const shown = name.toLowerCase() === 'ocp-apim-subscription-key' ? MASK : value;
    parts.push(`-H ${shellQuote(`${name}: ${shown}`)}`);
  }
  parts.push(...curlHeaderArgs(url, request.headers));
  if (request.body !== undefined) {
    const body =
      request.body.length > CURL_BODY_LIMIT
        ? `<${request.body.length} bytes: ${request.body.slice(0, 40)}...>`
        : request.body;
    parts.push(`--data-raw ${shellQuote(body)}`);
  }
  parts.push(shellQuote(withoutCredentials(request.url)));
  return parts.join(' ');
}

/** Quotes a string for a POSIX shell. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Serialises a value for `received`/`documented`, short enough for one line. */
export function show(value: unknown, limit = 120): string {
  let text: string;
  if (typeof value === 'string') text = JSON.stringify(value);
  else if (value === undefined) text = 'nothing';
  else text = JSON.stringify(value) ?? String(value);
  return text.length > limit ? `${text.slice(0, limit)}...` : text;
}

/** The identity of a finding: the same defect seen by several tests is one finding. */
export function findingKey(finding: Failure): string {
  return [finding.check, finding.operation, finding.title, finding.pointer ?? ''].join('\u0000');
}
