// What RFC 9110, 9111 and 9112 allow in the fields and framing of the same answers: media type
// parameters and case, caching fields, field names in any case, the chunked transfer coding, and
// Retry-After as an HTTP-date.
import { createHash } from 'node:crypto';
import type { HandlerResult } from '../faults/types.ts';
import type { Variation } from './types.ts';

/**
 * Ways to write the media type of a JSON answer: type, subtype and parameter names are
 * case-insensitive, a parameter value may be a quoted string, white space may stand around the
 * semicolon (RFC 9110, sections 8.3.1 and 5.6.6); `application/json` defines no charset parameter
 * (RFC 8259, section 11: JSON is UTF-8), so it may be left out or written in any case.
 */
export const JSON_MEDIA_TYPES = [
  'application/json',
  'application/json;charset=UTF-8',
  'Application/JSON; Charset="utf-8"',
  'application/json ; charset=utf-8',
  'APPLICATION/JSON',
] as const;

/** An IMF-fixdate (RFC 9110, section 5.6.7): `Sun, 06 Nov 1994 08:49:37 GMT`. */
export function imfFixdate(ms: number): string {
  return new Date(ms).toUTCString();
}

/** The JSON answers of a result: every status, any body the server writes as JSON. */
function isJson(result: HandlerResult): boolean {
  return result.contentType === undefined || /json/i.test(result.contentType);
}

/** Header names as a server that writes them in its own case does: some upper case, the others capitalized word by word. */
function otherCase(name: string): string {
  if (name === 'content-type' || name === 'retry-after' || name.startsWith('x-')) return name.toUpperCase();
  return name.replace(/(^|-)([a-z])/g, (_whole, dash: string, letter: string) => dash + letter.toUpperCase());
}

/** When every answer of a run of the caching variation was last modified: the server's start. */
const STARTED = Date.now();

/** The HTTP field and framing variations. */
export function httpFieldVariations(): Variation[] {
  let answers = 0;
  return [
    {
      name: 'content-type-parameters',
      group: 'all',
      operations: [],
      deviation: 'legitimate',
      allowedBy:
        'RFC 9110, sections 8.3.1 and 5.6.6: media type, subtype and parameter names are case-insensitive, a parameter value may be quoted, white space may surround the semicolon; RFC 8259, section 11: application/json has no charset parameter',
      description: `every JSON answer labels its media type in one of the forms HTTP allows, in turn: ${JSON_MEDIA_TYPES.join(' | ')}`,
      response: (_ctx, result) =>
        isJson(result) ? { ...result, contentType: JSON_MEDIA_TYPES[answers++ % JSON_MEDIA_TYPES.length] } : result,
    },
    {
      name: 'caching-fields',
      group: 'all',
      operations: [],
      deviation: 'legitimate',
      allowedBy:
        'RFC 9111, section 5 (Cache-Control, Expires, Age) and RFC 9110, sections 8.8 and 12.5.5 (ETag, Last-Modified, Vary): a server may say how its answers may be cached',
      description:
        'every answer carries caching fields: a 200 Cache-Control: public, max-age=300 with an ETag, Last-Modified, Expires, Age and Vary; any other status Cache-Control: no-store',
      response: (_ctx, result) => {
        const text = result.rawBody?.toString() ?? JSON.stringify(result.body ?? null);
        const fields: Record<string, string> =
          result.status === 200
            ? {
                'cache-control': 'public, max-age=300',
                etag: `W/"${createHash('sha256').update(text).digest('hex').slice(0, 16)}"`,
                'last-modified': imfFixdate(STARTED),
                expires: imfFixdate(Date.now() + 300_000),
                age: String(Math.min(300, Math.floor((Date.now() - STARTED) / 1000))),
                vary: 'Accept-Encoding, Ocp-Apim-Subscription-Key',
              }
            : { 'cache-control': 'no-store' };
        return { ...result, headers: { ...result.headers, ...fields } };
      },
    },
    {
      name: 'field-names-in-other-case',
      group: 'all',
      operations: [],
      deviation: 'legitimate',
      allowedBy: 'RFC 9110, section 5.1: field names are case-insensitive',
      description:
        'every answer writes its field names in another case: CONTENT-TYPE, Content-Length, RETRY-AFTER, Connection...',
      response: (_ctx, result) => ({ ...result, headerCase: otherCase }),
    },
    {
      name: 'chunked-transfer-coding',
      group: 'all',
      operations: [],
      deviation: 'legitimate',
      allowedBy:
        'RFC 9112, sections 6.1 and 7.1: a response body may be sent with the chunked transfer coding instead of a Content-Length',
      description: 'every answer is sent without a Content-Length, in three chunks of the chunked transfer coding',
      response: (_ctx, result) => ({ ...result, chunks: 3 }),
    },
    {
      name: 'retry-after-http-date',
      group: 'all',
      operations: ['answerSearch', 'urlPreview'],
      deviation: 'legitimate',
      allowedBy: 'RFC 9110, section 10.2.3: Retry-After = HTTP-date / delay-seconds',
      description:
        'a 429 of answer search and URL preview carries Retry-After as an HTTP-date (the moment the stated wait ends, rounded up to the second) instead of seconds; the message still states the seconds',
      response: (_ctx, result) => {
        const seconds = Number(result.headers?.['retry-after']);
        if (result.status !== 429 || !Number.isFinite(seconds)) return result;
        const at = Math.ceil((Date.now() + seconds * 1000) / 1000) * 1000;
        return { ...result, headers: { ...result.headers, 'retry-after': imfFixdate(at) } };
      },
    },
  ];
}
