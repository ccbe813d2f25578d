// Faults of the coverage model's classes (contracts/coverage/classes.ts): each deviates only for
// one class of value of one input, as clients and libraries write them (a number's other forms,
// characters form and URL encoding treat specially, texts that are no words, header fields in
// another letter case or with media-type parameters, dates as date libraries print them), and
// answers every other request exactly as the clean server does. The fixed battery never sends the
// trigger; the generated requests that follow the model do.
import { errorResult } from '../errors.ts';
import { serverError } from './input.ts';
import type { Fault, HandlerResult, RequestContext } from './types.ts';

/** What a fault does to a request that shows its class. */
type Effect =
  /** A 500 (no input deserves one). */
  | '500'
  /** The group's 400 to a valid value (or 406 to an Accept the interface answers). */
  | 'refuse'
  /** A 401 to the full key: a field name the gateway matched case-sensitively. */
  | '401'
  /** An answer in HTML. */
  | 'html'
  /** A 404 where the group documents its 400 for a parameter it refuses. */
  | 'not-found';

/** One class fault: where it applies, what triggers it, what it does. */
interface ClassFault {
  name: string;
  group: Fault['group'];
  operations: string[];
  description: string;
  triggered(ctx: RequestContext): boolean;
  effect?: Effect;
  /** Instead of an effect: reads the request the wrong way (an invalid value taken for a valid one, a value misread). */
  request?(ctx: RequestContext): void;
}

/** The decoded value of a parameter as the client wrote it (before the server read its integers). */
const sent = (ctx: RequestContext, name: string) => ctx.received[name];

/** The integer parameters the interface has, as sent. */
const integers = (ctx: RequestContext) =>
  ['count', 'offset', '$top', '$skip', 'timeout', 'complete']
    .map((name) => sent(ctx, name))
    .filter((value): value is string => value !== undefined);

/** A header field's name as the client wrote it, if sent. */
function headerName(ctx: RequestContext, lower: string): string | undefined {
  for (let i = 0; i < ctx.rawHeaders.length; i += 2)
    if (ctx.rawHeaders[i]!.toLowerCase() === lower) return ctx.rawHeaders[i];
  return undefined;
}

/** A header field's value, if sent. */
function headerValue(ctx: RequestContext, lower: string): string | undefined {
  const value = ctx.headers[lower];
  return Array.isArray(value) ? value[0] : value;
}

/** The quoted string values of an expression. */
function quotedValues(expr: string | undefined): string[] {
  return [...(expr ?? '').matchAll(/'([^']*)'/g)].map((match) => match[1]!);
}

/** A letter of a script other than Latin, CJK, Arabic and Hebrew (Cyrillic, Greek, Devanagari...). */
const OTHER_SCRIPT =
  /(?![\p{Script=Latin}\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Arabic}\p{Script=Hebrew}])\p{L}/u;
/** A symbol outside ASCII that is no emoji. */
const SYMBOL = /(?![\p{Extended_Pictographic}])[\u00a2-\u00be\u2010-\u2bff](?<=[\p{S}\p{No}])/u;
/** Characters that print as nothing. */
const INVISIBLE = /[\u00ad\u200b\u200c\u200e\u200f\u2060\ufeff\u202a-\u202e\u2066-\u2069]/;
/** A character beyond the Basic Multilingual Plane that is no emoji. */
const ASTRAL = /(?![\p{Extended_Pictographic}\p{Regional_Indicator}\p{Emoji_Component}])[\u{10000}-\u{10ffff}]/u;
/** Full-width forms of ASCII. */
const FULL_WIDTH = /[\uff01-\uff5e]/;
/** -0, in any digits, with or without white space, a fraction of zero, an exponent. */
const NEGATIVE_ZERO = /^\s*-[0\u0660\uff10]+(\.0*)?([eE][+-]?\d+)?\s*$/;
/** The largest 32-bit signed integer. */
const INT32_MAX = 2_147_483_647n;

/** Reads a value of digits as a big integer, or undefined. */
function big(value: string | undefined): bigint | undefined {
  return value !== undefined && /^\d{1,30}$/.test(value.trim()) ? BigInt(value.trim()) : undefined;
}

/** The authority and path of a URL as the client wrote it (backslashes read as slashes). */
function urlParts(value: string | undefined): { authority: string; path: string } | undefined {
  const match = /^https?:\/\/([^/?#\\]*)([^?#]*)/i.exec(value?.trim() ?? '');
  return match ? { authority: match[1]!, path: match[2]!.replaceAll('\\', '/') } : undefined;
}

/** The class faults, one per class the model names beyond what the fixed battery sends. */
const CLASS_FAULTS: ClassFault[] = [
  // Texts: characters of the world, characters encoding treats specially, texts that are no words.
  {
    name: 'answersearch-other-script-500',
    group: 'answerSearch',
    operations: ['answerSearch'],
    description:
      'answer search answers 500 to a q holding a script other than Latin, CJK, Arabic and Hebrew (наука, θεωρία)',
    triggered: (ctx) => OTHER_SCRIPT.test(sent(ctx, 'q') ?? ''),
  },
  {
    name: 'similarity-symbol-500',
    group: 'similarity',
    operations: ['similarityGet'],
    description: 'GET similarity answers 500 to texts holding a symbol outside ASCII (∑, ≤, ½, €, °)',
    triggered: (ctx) => SYMBOL.test(`${sent(ctx, 's1') ?? ''}${sent(ctx, 's2') ?? ''}`),
  },
  {
    name: 'interpret-quotes-500',
    group: 'academic',
    operations: ['interpretGet'],
    description: 'GET interpret answers 500 to a query holding a double or typographic quote (" “ ” « »)',
    triggered: (ctx) => /["“”„«»‘‹›]/.test(sent(ctx, 'query') ?? ''),
  },
  {
    name: 'answersearch-invisible-rejected',
    group: 'answerSearch',
    operations: ['answerSearch'],
    description:
      'answer search answers 400 to a q holding a character that prints as nothing (a zero-width space, a soft hyphen)',
    triggered: (ctx) => INVISIBLE.test(sent(ctx, 'q') ?? ''),
    effect: 'refuse',
  },
  {
    name: 'similarity-astral-500',
    group: 'similarity',
    operations: ['similarityPost'],
    description:
      'POST similarity answers 500 to texts holding a character beyond the Basic Multilingual Plane that is no emoji (𝔤, 𠜎)',
    triggered: (ctx) => ASTRAL.test(`${sent(ctx, 's1') ?? ''}${sent(ctx, 's2') ?? ''}`),
  },
  {
    name: 'interpret-full-width-500',
    group: 'academic',
    operations: ['interpretPost'],
    description: 'POST interpret answers 500 to a query holding full-width letters or digits (ｇｒａｐｈ, １２３)',
    triggered: (ctx) => FULL_WIDTH.test(sent(ctx, 'query') ?? ''),
  },
  {
    name: 'answersearch-plus-read-as-space',
    group: 'answerSearch',
    operations: ['answerSearch'],
    description: "answer search reads a '+' of q as a space after decoding (c++ searched and echoed as 'c  ')",
    triggered: (ctx) => (sent(ctx, 'q') ?? '').includes('+'),
    request(ctx) {
      ctx.params.q = ctx.params.q!.replaceAll('+', ' ');
    },
  },
  {
    name: 'similarity-form-delimiters-500',
    group: 'similarity',
    operations: ['similarityGet'],
    description: "GET similarity answers 500 to texts holding '&' or '=' (r&d, x=y)",
    triggered: (ctx) => /[&=]/.test(`${sent(ctx, 's1') ?? ''}${sent(ctx, 's2') ?? ''}`),
  },
  {
    name: 'interpret-hash-500',
    group: 'academic',
    operations: ['interpretGet'],
    description: "GET interpret answers 500 to a query holding '#' (c#, #tag)",
    triggered: (ctx) => (sent(ctx, 'query') ?? '').includes('#'),
  },
  {
    name: 'answersearch-semicolon-500',
    group: 'answerSearch',
    operations: ['answerSearch'],
    description: "answer search answers 500 to a q holding ';'",
    triggered: (ctx) => (sent(ctx, 'q') ?? '').includes(';'),
  },
  {
    name: 'interpret-tilde-asterisk-500',
    group: 'academic',
    operations: ['interpretPost'],
    description: "POST interpret answers 500 to a query holding '~' or '*'",
    triggered: (ctx) => /[~*]/.test(sent(ctx, 'query') ?? ''),
  },
  {
    name: 'interpret-only-digits-500',
    group: 'academic',
    operations: ['interpretGet'],
    description: 'GET interpret answers 500 to a query of digits only (2021, 3.14)',
    triggered: (ctx) => /^[\d\s.,]*\d[\d\s.,]*$/.test(sent(ctx, 'query') ?? ''),
  },
  {
    name: 'answersearch-only-punctuation-rejected',
    group: 'answerSearch',
    operations: ['answerSearch'],
    description: 'answer search answers 400 to a q of punctuation only (?!, ...)',
    triggered: (ctx) => /^[\p{P}\p{S}\s]+$/u.test(sent(ctx, 'q') ?? '') && (sent(ctx, 'q') ?? '').trim() !== '',
    effect: 'refuse',
  },
  // Quoted values of expressions.
  {
    name: 'evaluate-other-script-value-500',
    group: 'academic',
    operations: ['evaluateGet'],
    description:
      'GET evaluate answers 500 to an expr quoting a value in a script other than Latin, CJK, Arabic and Hebrew',
    triggered: (ctx) => quotedValues(sent(ctx, 'expr')).some((value) => OTHER_SCRIPT.test(value)),
  },
  {
    name: 'calchistogram-symbol-value-500',
    group: 'academic',
    operations: ['calchistogramGet'],
    description: 'GET calchistogram answers 500 to an expr quoting a value with a symbol outside ASCII',
    triggered: (ctx) => quotedValues(sent(ctx, 'expr')).some((value) => SYMBOL.test(value)),
  },
  {
    name: 'evaluate-invisible-value-rejected',
    group: 'academic',
    operations: ['evaluatePost'],
    description: 'POST evaluate answers 400 to an expr quoting a value with a character that prints as nothing',
    triggered: (ctx) => quotedValues(sent(ctx, 'expr')).some((value) => INVISIBLE.test(value)),
    effect: 'refuse',
  },
  {
    name: 'calchistogram-astral-value-500',
    group: 'academic',
    operations: ['calchistogramPost'],
    description:
      'POST calchistogram answers 500 to an expr quoting a value with a character beyond the Basic Multilingual Plane',
    triggered: (ctx) => quotedValues(sent(ctx, 'expr')).some((value) => ASTRAL.test(value)),
  },
  {
    name: 'evaluate-full-width-value-500',
    group: 'academic',
    operations: ['evaluateGet'],
    description: 'GET evaluate answers 500 to an expr quoting a value with full-width letters or digits',
    triggered: (ctx) => quotedValues(sent(ctx, 'expr')).some((value) => FULL_WIDTH.test(value)),
  },
  // Integers as number parsers and formatters write them, and past 32 bits and 2^53.
  {
    name: 'hotevents-leading-zeros-500',
    group: 'eventKnowledge',
    operations: ['hotEvents'],
    description: 'hotevents answers 500 to $top or $skip written with leading zeros (007)',
    triggered: (ctx) => ['$top', '$skip'].some((name) => /^\s*[+-]?0\d/.test(sent(ctx, name) ?? '')),
  },
  {
    name: 'answersearch-leading-zeros-not-found',
    group: 'answerSearch',
    operations: ['answerSearch'],
    description:
      'answer search answers 404 (not its documented 400) to a count or offset written with leading zeros (007)',
    triggered: (ctx) => ['count', 'offset'].some((name) => /^\s*[+-]?0\d/.test(sent(ctx, name) ?? '')),
    effect: 'not-found',
  },
  {
    name: 'answersearch-plus-sign-count-500',
    group: 'answerSearch',
    operations: ['answerSearch'],
    description: 'answer search answers 500 to a count or offset written with a plus sign (+3)',
    triggered: (ctx) => ['count', 'offset'].some((name) => (sent(ctx, name) ?? '').includes('+')),
  },
  {
    name: 'evaluate-exponent-count-misread',
    group: 'academic',
    operations: ['evaluateGet'],
    description:
      "GET evaluate reads a count written with an exponent as all its digits (3e0 as 30, ' +03.0e0 ' as 3000)",
    triggered: (ctx) => /^\s*[+-]?\d+(\.\d*)?e[+-]?\d+\s*$/i.test(sent(ctx, 'count') ?? ''),
    request(ctx) {
      ctx.params.count = String(Math.min(10_000, Number(sent(ctx, 'count')!.replace(/\D/g, '') || '0')));
    },
  },
  {
    name: 'relatedevents-point-zero-500',
    group: 'eventKnowledge',
    operations: ['relatedEvents'],
    description: 'relatedevents answers 500 to $top or $skip written with a fraction of zero (3.0)',
    triggered: (ctx) => ['$top', '$skip'].some((name) => /\.0/.test(sent(ctx, name) ?? '')),
  },
  {
    name: 'eventdocuments-white-space-number-500',
    group: 'eventKnowledge',
    operations: ['eventDocuments'],
    description: "event documents answers 500 to $top or $skip with white space around it (' 3')",
    triggered: (ctx) =>
      ['$top', '$skip'].some((name) => {
        const value = sent(ctx, name);
        return value !== undefined && value.trim() !== '' && value.trim() !== value;
      }),
  },
  {
    name: 'interpret-negative-zero-500',
    group: 'academic',
    operations: ['interpretGet'],
    description: 'GET interpret answers 500 to an integer parameter written as -0',
    triggered: (ctx) => integers(ctx).some((value) => NEGATIVE_ZERO.test(value)),
  },
  {
    name: 'calchistogram-other-digits-500',
    group: 'academic',
    operations: ['calchistogramGet'],
    description: 'GET calchistogram answers 500 to a count or offset in digits of another script (３, ٣)',
    triggered: (ctx) => ['count', 'offset'].some((name) => /[^\x00-\x7f]/.test(sent(ctx, name) ?? '')),
  },
  {
    name: 'answersearch-offset-beyond-int32-500',
    group: 'answerSearch',
    operations: ['answerSearch'],
    description: 'answer search answers 500 to an offset past a 32-bit integer (2147483648), within 2^53 - 1',
    triggered: (ctx) => {
      const offset = big(sent(ctx, 'offset'));
      return offset !== undefined && offset > INT32_MAX && offset <= BigInt(Number.MAX_SAFE_INTEGER);
    },
  },
  {
    name: 'hotevents-skip-beyond-safe-integer-500',
    group: 'eventKnowledge',
    operations: ['hotEvents'],
    description: 'hotevents answers 500 to a $skip past 2^53 - 1 (9007199254740993)',
    triggered: (ctx) => {
      const skip = big(sent(ctx, '$skip'));
      return skip !== undefined && skip > BigInt(Number.MAX_SAFE_INTEGER);
    },
  },
  // Lists, orders and models.
  {
    name: 'evaluate-spaced-attributes-500',
    group: 'academic',
    operations: ['evaluateGet'],
    description: "GET evaluate answers 500 to attributes joined with ', ' (Ti, Y)",
    triggered: (ctx) => /,\s/.test(sent(ctx, 'attributes') ?? ''),
  },
  {
    name: 'calchistogram-trailing-comma-attributes-500',
    group: 'academic',
    operations: ['calchistogramGet'],
    description: 'GET calchistogram answers 500 to attributes ending in a comma (Ti,Y,)',
    triggered: (ctx) => /,\s*$/.test(sent(ctx, 'attributes') ?? ''),
  },
  {
    name: 'evaluate-orderby-title-500',
    group: 'academic',
    operations: ['evaluateGet'],
    description: 'GET evaluate answers 500 to orderby on Ti',
    triggered: (ctx) => /^Ti(:|$)/.test(sent(ctx, 'orderby') ?? ''),
  },
  {
    name: 'evaluate-orderby-id-500',
    group: 'academic',
    operations: ['evaluatePost'],
    description: 'POST evaluate answers 500 to orderby on Id',
    triggered: (ctx) => /^Id(:|$)/.test(sent(ctx, 'orderby') ?? ''),
  },
  {
    name: 'calchistogram-model-case-500',
    group: 'academic',
    operations: ['calchistogramPost'],
    description: 'POST calchistogram answers 500 to model written latest in another case (LATEST)',
    triggered: (ctx) => {
      const model = sent(ctx, 'model');
      return model !== undefined && model !== 'latest' && model.toLowerCase() === 'latest';
    },
  },
  // Markets as BCP 47 and locale libraries write them.
  {
    name: 'answersearch-market-script-500',
    group: 'answerSearch',
    operations: ['answerSearch'],
    description: 'answer search answers 500 to a market with a script subtag (zh-Hans-CN)',
    triggered: (ctx) => /^[a-z]{2,3}-[a-z]{4}-/i.test(sent(ctx, 'mkt') ?? ''),
  },
  {
    name: 'answersearch-market-region-500',
    group: 'answerSearch',
    operations: ['answerSearch'],
    description: 'answer search answers 500 to a market with a numeric region (es-419)',
    triggered: (ctx) => /^[a-z]{2,3}(-[a-z]{4})?-\d{3}$/i.test(sent(ctx, 'mkt') ?? ''),
  },
  {
    name: 'answersearch-posix-locale-accepted',
    group: 'answerSearch',
    operations: ['answerSearch'],
    description: 'answer search reads a POSIX locale with its codeset (en_US.UTF-8) as its market instead of 400',
    triggered: (ctx) => /^[a-z]{2,3}_[a-z]{2,4}\./i.test(sent(ctx, 'mkt') ?? ''),
    request(ctx) {
      ctx.params.mkt = 'en-US';
    },
  },
  {
    name: 'answersearch-language-only-accepted',
    group: 'answerSearch',
    operations: ['answerSearch'],
    description: 'answer search reads a language without a country (en) as en-US instead of 400',
    triggered: (ctx) => /^[a-z]{2,3}$/i.test(sent(ctx, 'mkt') ?? ''),
    request(ctx) {
      ctx.params.mkt = 'en-US';
    },
  },
  // URLs as WHATWG URL reads them.
  {
    name: 'urlpreview-ip-host-500',
    group: 'urlPreview',
    operations: ['urlPreview'],
    description: 'URL preview answers 500 to a URL whose host is an IP address (127.0.0.1, [::1])',
    triggered: (ctx) => {
      const host = urlParts(sent(ctx, 'q'))?.authority.replace(/^.*@/, '').replace(/:\d*$/, '');
      return host !== undefined && (/^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.startsWith('['));
    },
  },
  {
    name: 'urlpreview-userinfo-500',
    group: 'urlPreview',
    operations: ['urlPreview'],
    description: 'URL preview answers 500 to a URL with a user and password before its host',
    triggered: (ctx) => urlParts(sent(ctx, 'q'))?.authority.includes('@') === true,
  },
  {
    name: 'urlpreview-dot-segments-500',
    group: 'urlPreview',
    operations: ['urlPreview'],
    description: 'URL preview answers 500 to a URL with dot segments in its path (/a/./b/../c)',
    triggered: (ctx) => /(^|\/)\.\.?(\/|$)/.test(urlParts(sent(ctx, 'q'))?.path ?? ''),
  },
  {
    name: 'urlpreview-upper-case-url-500',
    group: 'urlPreview',
    operations: ['urlPreview'],
    description: 'URL preview answers 500 to a URL whose scheme or host is in upper case (HTTPS://WWW.EXAMPLE.COM/)',
    triggered: (ctx) => {
      const value = sent(ctx, 'q')?.trim() ?? '';
      return /^HTTPS?:/.test(value) || /[A-Z]/.test(urlParts(value)?.authority.replace(/^.*@/, '') ?? '');
    },
  },
  {
    name: 'urlpreview-backslash-500',
    group: 'urlPreview',
    operations: ['urlPreview'],
    description: 'URL preview answers 500 to an http(s) URL holding a backslash',
    triggered: (ctx) => /^https?:/i.test(sent(ctx, 'q')?.trim() ?? '') && (sent(ctx, 'q') ?? '').includes('\\'),
  },
  // Dates as date libraries print them.
  {
    name: 'hotevents-epoch-500',
    group: 'eventKnowledge',
    operations: ['hotEvents'],
    description: 'hotevents answers 500 to 1970-01-01, a timestamp of 0',
    triggered: (ctx) => sent(ctx, 'date') === '1970-01-01',
  },
  {
    name: 'hotevents-before-epoch-500',
    group: 'eventKnowledge',
    operations: ['hotEvents'],
    description: 'hotevents answers 500 to a date before 1970 (a negative timestamp)',
    triggered: (ctx) =>
      /^(\d{4})-\d{2}-\d{2}$/.test(sent(ctx, 'date') ?? '') && Number(sent(ctx, 'date')!.slice(0, 4)) < 1970,
  },
  {
    name: 'hotevents-y2038-500',
    group: 'eventKnowledge',
    operations: ['hotEvents'],
    description: 'hotevents answers 500 to 2038-01-19 and 2038-01-20, where a 32-bit time_t ends',
    triggered: (ctx) => ['2038-01-19', '2038-01-20'].includes(sent(ctx, 'date') ?? ''),
  },
  {
    name: 'hotevents-early-year-500',
    group: 'eventKnowledge',
    operations: ['hotEvents'],
    description: 'hotevents answers 500 to a year before 1000 (0999-12-31)',
    triggered: (ctx) =>
      /^0\d{3}-\d{2}-\d{2}$/.test(sent(ctx, 'date') ?? '') && !(sent(ctx, 'date') ?? '').startsWith('0000'),
  },
  {
    name: 'hotevents-year-9999-500',
    group: 'eventKnowledge',
    operations: ['hotEvents'],
    description: 'hotevents answers 500 to 9999-12-31 (the next day overflows)',
    triggered: (ctx) => sent(ctx, 'date') === '9999-12-31',
  },
  {
    name: 'hotevents-year-zero-500',
    group: 'eventKnowledge',
    operations: ['hotEvents'],
    description: 'hotevents answers 500 to a date of the year 0000',
    triggered: (ctx) => (sent(ctx, 'date') ?? '').startsWith('0000-'),
  },
  {
    name: 'hotevents-padded-date-500',
    group: 'eventKnowledge',
    operations: ['hotEvents'],
    description: "hotevents answers 500 to a date with spaces around it (' 2021-03-15')",
    triggered: (ctx) => {
      const date = sent(ctx, 'date');
      return date !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(date.trim()) && date.trim() !== date;
    },
  },
  {
    name: 'hotevents-week-date-accepted',
    group: 'eventKnowledge',
    operations: ['hotEvents'],
    description: 'hotevents reads an ISO 8601 week date (2021-W11-1) as a date instead of refusing it',
    triggered: (ctx) => /^\d{4}-W\d{2}-\d$/.test(sent(ctx, 'date') ?? ''),
    request(ctx) {
      ctx.params.date = weekDay(ctx.params.date!);
    },
  },
  {
    name: 'hotevents-ordinal-date-accepted',
    group: 'eventKnowledge',
    operations: ['hotEvents'],
    description: 'hotevents reads an ISO 8601 ordinal date (2021-074) as a date instead of refusing it',
    triggered: (ctx) => /^\d{4}-\d{3}$/.test(sent(ctx, 'date') ?? ''),
    request(ctx) {
      const [year, day] = ctx.params.date!.split('-').map(Number);
      ctx.params.date = new Date(Date.UTC(year!, 0, day!)).toISOString().slice(0, 10);
    },
  },
  {
    name: 'hotevents-expanded-year-accepted',
    group: 'eventKnowledge',
    operations: ['hotEvents'],
    description: 'hotevents reads an ISO 8601 expanded year (+002021-03-15) as a date instead of refusing it',
    triggered: (ctx) => /^[+-]\d{5,}-\d{2}-\d{2}$/.test(sent(ctx, 'date') ?? ''),
    request(ctx) {
      ctx.params.date = ctx.params.date!.replace(/^[+-]0*(\d{4})/, '$1');
    },
  },
  // Ids and path segments.
  {
    name: 'relatedevents-spaced-id-500',
    group: 'eventKnowledge',
    operations: ['relatedEvents'],
    description: 'relatedevents answers 500 to an id with spaces for underscores (Barack Obama)',
    triggered: (ctx) => / /.test((sent(ctx, 'wikipediaid') ?? '').trim()),
  },
  {
    name: 'eventdocuments-escaped-id-not-found',
    group: 'eventKnowledge',
    operations: ['eventDocuments'],
    description:
      'event documents answers 404 to a known id whose characters are percent-encoded in the path (the same segment)',
    triggered: (ctx) => /\/events\/[^/]*%[0-9A-Fa-f]{2}[^/]*\/documents/.test(ctx.rawPath),
    effect: 'refuse',
  },
  {
    name: 'eventdocuments-upper-case-id-500',
    group: 'eventKnowledge',
    operations: ['eventDocuments'],
    description: 'event documents answers 500 to an event id in upper-case hex digits',
    triggered: (ctx) => /^[0-9A-F]{32}$/.test(ctx.pathParams.event_id ?? '') && /[A-F]/.test(ctx.pathParams.event_id!),
  },
  {
    name: 'eventdocuments-segment-delimiters-500',
    group: 'eventKnowledge',
    operations: ['eventDocuments'],
    description: 'event documents answers 500 to an event id holding / ? # ; or a space',
    triggered: (ctx) => /[/?#; ]/.test(ctx.pathParams.event_id ?? ''),
  },
  // Query strings and bodies as encoders write them.
  {
    name: 'interpret-empty-pairs-rejected',
    group: 'academic',
    operations: ['interpretGet'],
    description: "GET interpret answers 400 to a query string with empty fields ('&&', a leading or trailing '&')",
    triggered: (ctx) => /&&|^&|&$/.test(ctx.rawQuery),
    effect: 'refuse',
  },
  {
    name: 'answersearch-empty-value-500',
    group: 'answerSearch',
    operations: ['answerSearch'],
    description: 'answer search answers 500 to an optional parameter sent empty (count=)',
    triggered: (ctx) => ['count', 'offset', 'safesearch'].some((name) => sent(ctx, name) === ''),
  },
  {
    name: 'similarity-escaped-body-500',
    group: 'similarity',
    operations: ['similarityPost'],
    description:
      'POST similarity answers 500 to a form body whose letters are percent-encoded in lower-case hex (%73%31=...)',
    triggered: (ctx) => /%[67][0-9a-f]/.test(ctx.rawBody ?? ''),
  },
  // Header fields as HTTP clients write them.
  {
    name: 'evaluate-content-type-charset-rejected',
    group: 'academic',
    operations: ['evaluatePost'],
    description: 'POST evaluate answers 400 to a Content-Type with a charset parameter (; charset=UTF-8)',
    triggered: (ctx) => /;\s*charset=[^"]/i.test(headerValue(ctx, 'content-type') ?? ''),
    effect: 'refuse',
  },
  {
    name: 'interpret-content-type-case-rejected',
    group: 'academic',
    operations: ['interpretPost'],
    description:
      'POST interpret answers 400 to the form media type in another letter case (Application/X-WWW-Form-URLEncoded)',
    triggered: (ctx) => {
      const type = headerValue(ctx, 'content-type')?.split(';')[0]?.trim();
      return type !== undefined && type.toLowerCase() === 'application/x-www-form-urlencoded' && /[A-Z]/.test(type);
    },
    effect: 'refuse',
  },
  {
    name: 'calchistogram-quoted-charset-500',
    group: 'academic',
    operations: ['calchistogramPost'],
    description: 'POST calchistogram answers 500 to a Content-Type whose charset is a quoted string (charset="utf-8")',
    triggered: (ctx) => /charset="/i.test(headerValue(ctx, 'content-type') ?? ''),
  },
  {
    name: 'similarity-no-content-type-500',
    group: 'similarity',
    operations: ['similarityPost'],
    description: 'POST similarity answers 500 to a body without a Content-Type (the header is optional)',
    triggered: (ctx) => headerValue(ctx, 'content-type') === undefined,
  },
  {
    name: 'interpret-text-plain-500',
    group: 'academic',
    operations: ['interpretPost'],
    description: 'POST interpret answers 500 to a form body labelled text/plain',
    triggered: (ctx) => /^text\/plain/i.test(headerValue(ctx, 'content-type') ?? ''),
  },
  {
    name: 'hotevents-lower-case-key-name-401',
    group: 'eventKnowledge',
    operations: ['hotEvents'],
    description:
      'hotevents answers 401 to the full key when its field name is written in lower case (names are case-insensitive)',
    triggered: (ctx) => headerName(ctx, 'ocp-apim-subscription-key') === 'ocp-apim-subscription-key',
    effect: '401',
  },
  {
    name: 'urlpreview-upper-case-key-name-401',
    group: 'urlPreview',
    operations: ['urlPreview'],
    description: 'URL preview answers 401 to the full key when its field name is written in upper case',
    triggered: (ctx) => headerName(ctx, 'ocp-apim-subscription-key') === 'OCP-APIM-SUBSCRIPTION-KEY',
    effect: '401',
  },
  {
    name: 'relatedevents-accept-any-406',
    group: 'eventKnowledge',
    operations: ['relatedEvents'],
    description: 'relatedevents answers 406 to Accept: */*',
    triggered: (ctx) => headerValue(ctx, 'accept') === '*/*',
    effect: 'refuse',
  },
  {
    name: 'hotevents-accept-list-500',
    group: 'eventKnowledge',
    operations: ['hotEvents'],
    description: 'hotevents answers 500 to an Accept listing several types (application/json, text/plain, */*)',
    triggered: (ctx) => (headerValue(ctx, 'accept') ?? '').includes(','),
  },
  {
    name: 'answersearch-browser-accept-html',
    group: 'answerSearch',
    operations: ['answerSearch'],
    description: "answer search answers a browser's Accept (text/html first) with an HTML page",
    triggered: (ctx) => (headerValue(ctx, 'accept') ?? '').startsWith('text/html'),
    effect: 'html',
  },
];

/** The date of an ISO 8601 week date (yyyy-Www-d). */
function weekDay(text: string): string {
  const [, year, week, day] = /^(\d{4})-W(\d{2})-(\d)$/.exec(text)!;
  // Week 1 holds the year's first Thursday; its Monday is the Monday on or before 4 January.
  const fourth = Date.UTC(Number(year), 0, 4);
  const monday = fourth - ((new Date(fourth).getUTCDay() + 6) % 7) * 86_400_000;
  return new Date(monday + ((Number(week) - 1) * 7 + Number(day) - 1) * 86_400_000).toISOString().slice(0, 10);
}

/** The answer a fault's effect gives instead of the clean one. */
function effectOf(effect: Effect, ctx: RequestContext): HandlerResult {
  switch (effect) {
    case '500':
      return serverError(ctx);
    case 'refuse':
      if (ctx.group === 'eventKnowledge')
        return ctx.headers.accept === '*/*'
          ? { status: 406, body: { statusCode: 406, message: 'Not acceptable' } }
          : { status: 404, body: { statusCode: 404, message: 'Resource not found' } };
      return errorResult(ctx.group, 400, 'Missing or invalid parameter: the request', 'q');
    case '401':
      return errorResult(ctx.group, 401, 'Access denied due to invalid subscription key.');
    case 'html':
      return { status: 200, rawBody: '<!doctype html><title>results</title><p>results</p>', contentType: 'text/html' };
    case 'not-found':
      return errorResult(ctx.group, 404, 'Resource not found');
  }
}

/** Forbidden deviations each only one class of the coverage model triggers. */
export function classFaults(): Fault[] {
  return CLASS_FAULTS.map(({ triggered, effect, request, ...fault }) => ({
    ...fault,
    deviation: 'forbidden' as const,
    ...(request
      ? {
          request(ctx: RequestContext) {
            if (triggered(ctx)) request(ctx);
          },
        }
      : {
          response: (ctx: RequestContext, result: HandlerResult) =>
            triggered(ctx) ? effectOf(effect ?? '500', ctx) : result,
        }),
  }));
}
