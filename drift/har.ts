import { registerSecret } from '../config/redact.ts';
import { harBody, harContent, harEntries, harForm, harHeader, harHeaderRecord, harKeys } from '../http/har.ts';
import { matchOperation, OPERATIONS } from '../openapi/spec.ts';
import { mediaTypeOf, validateRequest, validateResponse } from '../openapi/validator.ts';
import { compareExchange, isJsonMediaType } from './compare.ts';
import { type DriftFinding, FindingSet } from './findings.ts';

export { HarFormatError } from '../http/har.ts';

/** The verdict on one recorded exchange. */
export interface HarExchange {
  /** Position in `log.entries`. */
  index: number;
  method: string;
  /** Path and query of the request (a key in the query is masked when printed). */
  target: string;
  /** Operation label, when the path matched one. */
  operation?: string;
  operationId?: string;
  status: number;
  mediaType?: string;
  /** False when the response breaks the spec (schema, undocumented status or media type, unparseable JSON). */
  valid: boolean;
  /** Why it is invalid, one line each. */
  errors: string[];
  /** Where the recorded request itself breaks the spec (informational: a client error, not the target's). */
  requestErrors?: string[];
  /** Set when the exchange was not judged (no operation matched, no status, body not recorded). */
  skipped?: string;
}

/** Which operations and statuses the recorded traffic exercised. */
export interface OperationCoverage {
  operation: string;
  operationId: string;
  /** Exchanges per status seen. */
  statuses: Record<string, number>;
  /** Documented statuses the traffic never showed. */
  notSeen: string[];
}

/** The result of `kgate drift har`. */
export interface HarResult {
  kind: 'drift-har';
  source: string;
  summary: {
    entries: number;
    matched: number;
    unmatched: number;
    invalid: number;
    operationsTouched: number;
    operationsUntouched: number;
  };
  exchanges: HarExchange[];
  /** Drift seen in valid traffic too (undocumented properties, new values), as in `drift live`. */
  findings: DriftFinding[];
  coverage: OperationCoverage[];
  /** Operations the traffic never touched. */
  untouched: string[];
}

/**
 * Validates recorded traffic (a parsed HAR 1.2 log) against the spec: every exchange whose path
 * matches an operation, also under a base-path prefix, is checked with the spec's validator and
 * walked for drift; base64 bodies are decoded; coverage lists what the traffic exercised.
 * Subscription keys found in the HAR are registered as secrets so no output shows them.
 */
export function analyzeHar(har: unknown, source: string): HarResult {
  const entries = harEntries(har, source);
  const findings = new FindingSet();
  const exchanges: HarExchange[] = [];
  const seen = new Map<string, Record<string, number>>();

  for (const entry of entries) {
    const { index, method, request, response, url } = entry;
    for (const key of harKeys(entry)) registerSecret(key);
    const status = Number(response.status ?? 0);
    const target = url ? `${url.pathname}${url.search}` : entry.rawUrl;
    const base: HarExchange = { index, method, target, status, valid: true, errors: [] };
    const match = url ? matchOperation(method, url.pathname) : undefined;
    if (!match) {
      exchanges.push({ ...base, skipped: 'no operation matches this method and path' });
      continue;
    }
    const op = match.operation;
    const requestErrors = checkRequest(op.operationId, request, url!, match.pathParams);
    const exchange: HarExchange = {
      ...base,
      operation: op.label,
      operationId: op.operationId,
      ...(requestErrors.length > 0 ? { requestErrors } : {}),
    };
    if (!Number.isInteger(status) || status < 100) {
      exchanges.push({ ...exchange, skipped: 'no response recorded' });
      continue;
    }
    const statuses = seen.get(op.operationId) ?? {};
    statuses[String(status)] = (statuses[String(status)] ?? 0) + 1;
    seen.set(op.operationId, statuses);

    const content = harContent(response);
    const contentType =
      harHeader(response.headers, 'content-type') ??
      (typeof content.mimeType === 'string' ? content.mimeType : undefined);
    const mediaType = mediaTypeOf(contentType);
    if (typeof content.text !== 'string' && Number(content.size ?? 0) > 0) {
      exchanges.push({ ...exchange, mediaType, skipped: 'response body not recorded' });
      continue;
    }
    const text = harBody(content);
    const headers = harHeaderRecord(response.headers);
    if (contentType !== undefined && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) {
      headers['content-type'] = contentType;
    }
    const comparison = compareExchange(op, { sent: sentParams(request, url!), status, headers, text });
    findings.add(comparison.issues, {
      operationId: op.operationId,
      operation: op.label,
      status,
      mediaType,
      seenIn: `entry ${index}`,
    });
    const errors: string[] = comparison.issues
      .filter((issue) => issue.kind === 'unparseable-body')
      .map((issue) => issue.message);
    if (errors.length === 0) {
      const body = isJsonMediaType(mediaType) ? comparison.body : text;
      const verdict = validateResponse(op.operationId, status, contentType, body);
      errors.push(...verdict.errors.map((error) => error.message));
    }
    exchanges.push({ ...exchange, mediaType, valid: errors.length === 0, errors });
  }

  const coverage = OPERATIONS.map((op): OperationCoverage => {
    const statuses = seen.get(op.operationId) ?? {};
    return {
      operation: op.label,
      operationId: op.operationId,
      statuses,
      notSeen: Object.keys(op.responses).filter((status) => !(status in statuses)),
    };
  });
  const untouched = coverage.filter((item) => Object.keys(item.statuses).length === 0).map((item) => item.operation);
  const matched = exchanges.filter((item) => item.operation !== undefined).length;
  return {
    kind: 'drift-har',
    source,
    summary: {
      entries: entries.length,
      matched,
      unmatched: entries.length - matched,
      invalid: exchanges.filter((item) => !item.valid).length,
      operationsTouched: coverage.length - untouched.length,
      operationsUntouched: untouched.length,
    },
    exchanges,
    findings: findings.list(),
    coverage,
    untouched,
  };
}

/** The query parameters and form fields the recorded request sent. */
function sentParams(request: Record<string, unknown>, url: URL): Record<string, string> {
  return { ...Object.fromEntries(url.searchParams), ...harForm(request) };
}

/** Validates the recorded request's query, form body and path parameters. */
function checkRequest(
  operationId: string,
  request: Record<string, unknown>,
  url: URL,
  pathParams: Record<string, string>,
): string[] {
  const query = Object.fromEntries(url.searchParams);
  const form = harForm(request);
  return validateRequest(operationId, { query, form, pathParams }).errors.map((error) => error.message);
}
