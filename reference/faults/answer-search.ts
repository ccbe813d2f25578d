import { child, dropParams, editOk, editStatus, type JsonObject, OPS, objects, shiftIntParam } from './transform.ts';
import type { Fault } from './types.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function webPages(body: JsonObject): JsonObject[] {
  return objects(child(body, 'webPages')?.value);
}

function rankingItems(body: JsonObject): JsonObject[] {
  const ranking = child(body, 'rankingResponse');
  return ['mainline', 'sidebar', 'pole'].flatMap((section) => objects(child(ranking, section)?.items));
}

/** An id pointing 1000 results further than `id` (`...#WebPages.3` -> `...#WebPages.1003`, `#Facts` -> `#Facts.1000`). */
function staleId(id: string): string {
  const match = /^(.*?)(\d+)$/.exec(id);
  return match ? `${match[1]}${Number(match[2]) + 1000}` : `${id}.1000`;
}

/** Forbidden deviations of answer search. */
export function answerSearchFaults(): Fault[] {
  return [
    {
      name: 'answersearch-webpage-url-missing',
      group: 'answerSearch',
      operations: [...OPS.answerSearch],
      deviation: 'forbidden',
      description: 'answer search drops the documented webPages.value[].url field',
      response: editOk((body) => {
        for (const page of webPages(body)) delete page.url;
      }),
    },
    {
      name: 'answersearch-total-matches-as-string',
      group: 'answerSearch',
      operations: [...OPS.answerSearch],
      deviation: 'forbidden',
      description: 'answer search returns webPages.totalEstimatedMatches as a string instead of a number',
      response: editOk((body) => {
        const pages = child(body, 'webPages');
        if (pages && pages.totalEstimatedMatches !== undefined) {
          pages.totalEstimatedMatches = String(pages.totalEstimatedMatches);
        }
      }),
    },
    {
      name: 'answersearch-offset-off-by-one',
      group: 'answerSearch',
      operations: [...OPS.answerSearch],
      deviation: 'forbidden',
      description:
        'answer search treats offset as 1-based: offset=n starts at web page n-1, so consecutive pages overlap',
      request: (ctx) => shiftIntParam(ctx.params, 'offset', -1),
    },
    {
      name: 'answersearch-offset-ignored',
      group: 'answerSearch',
      operations: [...OPS.answerSearch],
      deviation: 'forbidden',
      description: 'answer search ignores offset: every page starts at the first web page',
      request: dropParams('offset'),
    },
    {
      name: 'answersearch-count-ignored',
      group: 'answerSearch',
      operations: [...OPS.answerSearch],
      deviation: 'forbidden',
      description: 'answer search ignores count and always returns up to the default 10 web pages',
      request: dropParams('count'),
    },
    {
      name: 'answersearch-invalid-offset-accepted',
      group: 'answerSearch',
      operations: [...OPS.answerSearch],
      deviation: 'forbidden',
      description:
        'answer search ignores an offset that is not a non-negative integer (offset=-1) instead of 400 naming offset',
      request(ctx) {
        const offset = ctx.params.offset;
        if (offset !== undefined && !/^\s*\d+\s*$/.test(offset)) delete ctx.params.offset;
      },
    },
    {
      name: 'answersearch-missing-mkt-accepted',
      group: 'answerSearch',
      operations: [...OPS.answerSearch],
      deviation: 'forbidden',
      description: 'answer search without the required mkt answers 200 (as en-US) instead of 400 naming mkt',
      request(ctx) {
        if (ctx.params.mkt === undefined || ctx.params.mkt.trim() === '') ctx.params.mkt = 'en-US';
      },
    },
    {
      name: 'answersearch-400-no-parameter',
      group: 'answerSearch',
      operations: [...OPS.answerSearch],
      deviation: 'forbidden',
      description: 'answer search 400 errors[] carry no parameter field naming the offending parameter',
      response: editStatus(400, (body) => {
        for (const error of objects(body.errors)) delete error.parameter;
      }),
    },
    {
      name: 'answersearch-400-wrong-parameter',
      group: 'answerSearch',
      operations: [...OPS.answerSearch],
      deviation: 'forbidden',
      description:
        "answer search 400 errors[].parameter is always 'query', not the offending parameter (q, mkt, count...)",
      response: editStatus(400, (body) => {
        for (const error of objects(body.errors)) error.parameter = 'query';
      }),
    },
    {
      name: 'answersearch-401-academic-shape',
      group: 'answerSearch',
      operations: [...OPS.answerSearch],
      deviation: 'forbidden',
      description:
        "answer search 401 body is the academic {error:{code:'Unspecified',message}} instead of {error:{statusCode,message}}",
      response: editStatus(401, (body) => {
        const message = child(body, 'error')?.message ?? '';
        return { error: { code: 'Unspecified', message } };
      }),
    },
    {
      name: 'rate-limit-disabled',
      group: 'all',
      operations: [...OPS.answerSearch, ...OPS.urlPreview],
      deviation: 'forbidden',
      description: 'answer search and URL preview have no rate limit: a burst over the rate is answered 200, never 429',
      settings: { rateLimit: Number.POSITIVE_INFINITY },
    },
    {
      name: 'answersearch-503-unavailable',
      group: 'answerSearch',
      operations: [...OPS.answerSearch],
      deviation: 'forbidden',
      description:
        'answer search is down: every request is answered 503 {error:{statusCode:503,message}}, at any pace (a server fault, not throttling)',
      response: () => ({
        status: 503,
        headers: {},
        body: { error: { statusCode: 503, message: 'The service is temporarily unavailable.' } },
      }),
    },
    {
      name: 'answersearch-429-no-seconds',
      group: 'answerSearch',
      operations: [...OPS.answerSearch],
      deviation: 'forbidden',
      description: "answer search 429 message is 'Rate limit is exceeded.' without the seconds to wait",
      response: editStatus(429, (body) => {
        const error = child(body, 'error');
        if (error) error.message = 'Rate limit is exceeded.';
      }),
    },
    {
      name: 'answersearch-429-wrong-shape',
      group: 'answerSearch',
      operations: [...OPS.answerSearch],
      deviation: 'forbidden',
      description: 'answer search 429 body is a flat {statusCode,message} instead of {error:{statusCode,message}}',
      response: editStatus(429, (body) => child(body, 'error') ?? body),
    },
    {
      name: 'answersearch-ranking-dangling-index',
      group: 'answerSearch',
      operations: [...OPS.answerSearch],
      deviation: 'forbidden',
      description:
        'answer search rankingResponse resultIndex values point 1000 past the end of the answer value arrays',
      response: editOk((body) => {
        for (const item of rankingItems(body)) {
          if (typeof item.resultIndex === 'number') item.resultIndex += 1000;
        }
      }),
    },
    {
      name: 'answersearch-ranking-dangling-id',
      group: 'answerSearch',
      operations: [...OPS.answerSearch],
      deviation: 'forbidden',
      description: 'answer search rankingResponse value.id references ids that no answer or result carries',
      response: editOk((body) => {
        for (const item of rankingItems(body)) {
          const value = child(item, 'value');
          if (value && typeof value.id === 'string') value.id = staleId(value.id);
        }
      }),
    },
    {
      name: 'answersearch-webpage-id-malformed',
      group: 'answerSearch',
      operations: [...OPS.answerSearch],
      deviation: 'forbidden',
      description:
        'answer search web page ids are the page URL instead of <answer_url>#WebPages.<i> (ranking references follow them)',
      response: editOk((body) => {
        const renamed = new Map<unknown, string>();
        for (const page of webPages(body)) {
          if (typeof page.url !== 'string') continue;
          renamed.set(page.id, page.url);
          page.id = page.url;
        }
        for (const item of rankingItems(body)) {
          const value = child(item, 'value');
          if (value && renamed.has(value.id)) value.id = renamed.get(value.id);
        }
      }),
    },
    {
      name: 'answersearch-entity-bingid-not-uuid',
      group: 'answerSearch',
      operations: [...OPS.answerSearch],
      deviation: 'forbidden',
      description: 'answer search entity bingId is 32 hex digits without dashes instead of a UUID',
      response: editOk((body) => {
        for (const entity of objects(child(body, 'entities')?.value)) {
          for (const [name, value] of Object.entries(entity)) {
            if (name.endsWith('Id') && typeof value === 'string' && UUID.test(value)) {
              entity[name] = value.replaceAll('-', '');
            }
          }
        }
      }),
    },
    {
      name: 'answersearch-date-last-crawled-not-utc',
      group: 'answerSearch',
      operations: [...OPS.answerSearch],
      deviation: 'forbidden',
      description: "answer search dateLastCrawled has no 'Z' (a local time without zone) instead of ISO 8601 UTC",
      response: editOk((body) => {
        for (const page of webPages(body)) {
          if (typeof page.dateLastCrawled === 'string') page.dateLastCrawled = page.dateLastCrawled.replace(/Z$/, '');
        }
      }),
    },
  ];
}
