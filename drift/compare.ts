import { loadSpec, type OperationInfo, type ResponseInfo } from '../openapi/spec.ts';
import { mediaTypeOf } from '../openapi/validator.ts';
import { echoIssues, rankingIdIssues } from './consistency.ts';
import { sample } from './schema.ts';
import { type WalkIssue, walkInstance } from './walk.ts';
import { exponentNumberIssues, headerIssues } from './wire.ts';

/** The documented response of an operation for a status: exact code, then `4XX`, then `default`. */
export function documentedResponse(op: OperationInfo, status: number): ResponseInfo | undefined {
  return op.responses[String(status)] ?? op.responses[`${String(status)[0]}XX`] ?? op.responses.default;
}

/** True for media types whose body is JSON. */
export function isJsonMediaType(mediaType: string | undefined): boolean {
  return mediaType !== undefined && (mediaType === 'application/json' || mediaType.endsWith('+json'));
}

/** The outcome of comparing one response with the spec. */
export interface Comparison {
  issues: WalkIssue[];
  /** The parsed JSON body, when the body was JSON and parsed. */
  body?: unknown;
  /** The bare media type of the response. */
  mediaType?: string;
}

/**
 * Compares one response (status, Content-Type, body text) with what the spec documents for the
 * operation: status, media type, JSON well-formedness, then the body walked against its schema.
 */
export function compareResponse(
  op: OperationInfo,
  status: number,
  contentType: string | undefined,
  text: string,
  doc: unknown = loadSpec(),
): Comparison {
  const mediaType = mediaTypeOf(contentType);
  const at = { path: '$', normalizedPath: '$' };
  const response = documentedResponse(op, status);
  if (!response) {
    return {
      mediaType,
      issues: [
        {
          kind: 'undocumented-status',
          ...at,
          message: `status ${status} is not documented (documented: ${Object.keys(op.responses).join(', ')})`,
          sample: sample(text, 80),
        },
      ],
    };
  }
  const documentedTypes = Object.keys(response.content);
  if (documentedTypes.length === 0 && text.trim() === '') return { mediaType, issues: [] };
  const content = mediaType ? response.content[mediaType] : undefined;
  if (!content) {
    return {
      mediaType,
      issues: [
        {
          kind: 'undocumented-media-type',
          ...at,
          message: `media type ${mediaType ?? '(none)'} is not documented for ${status} (documented: ${documentedTypes.join(', ') || 'no body'})`,
          identity: mediaType ?? '(none)',
        },
      ],
    };
  }
  if (!isJsonMediaType(mediaType)) return { mediaType, issues: [] };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      mediaType,
      issues: [{ kind: 'unparseable-body', ...at, message: `body is not JSON: ${reason}`, sample: sample(text, 80) }],
    };
  }
  return { mediaType, body, issues: content.schema ? walkInstance(doc, content.schema, body) : [] };
}

/** One exchange as a client saw it: the parameters it sent and the whole response. */
export interface Exchange {
  /** Query parameters and form fields sent (names as sent). */
  sent: Record<string, string>;
  status: number;
  /** Response headers (names in any case). */
  headers: Record<string, string>;
  /** The raw body text. */
  text: string;
}

/**
 * Compares one exchange with the spec: the response as `compareResponse` does, then what a schema
 * cannot see: undocumented headers, numbers written in exponent form, and for a 200 body the
 * echoed parameter and the ranking references.
 */
export function compareExchange(op: OperationInfo, exchange: Exchange, doc: unknown = loadSpec()): Comparison {
  const contentType = Object.entries(exchange.headers).find(([name]) => name.toLowerCase() === 'content-type')?.[1];
  const comparison = compareResponse(op, exchange.status, contentType, exchange.text, doc);
  const issues = [...comparison.issues, ...headerIssues(op, exchange.headers, doc)];
  if (comparison.body !== undefined) {
    issues.push(...exponentNumberIssues(exchange.text));
    if (exchange.status === 200) {
      issues.push(...echoIssues(op, exchange.sent, comparison.body), ...rankingIdIssues(comparison.body));
    }
  }
  return { ...comparison, issues };
}
