// The classes of value each input of the interface takes, from the grammar of the input: RFC 3986
// for URLs and query components (reserved and percent characters in every free-text value), BCP 47
// for market codes in their spellings, RFC 3339 full-date for dates and what is not one, the
// expression grammar of facts.md (each documented attribute alone, combined and nested), the
// boundaries of every number, and the values of the world real clients send (world.ts). Each class
// is valid (must be answered 2xx), invalid (must be rejected, a 4xx) or open (the interface leaves
// its fate open: any answer but a 5xx); every answer is judged by every property that applies.
import { ATTRIBUTES, EXPRESSION_EDGES, EXPRESSION_FEATURES, EXPRESSION_MUTATIONS } from '../generative/expression.ts';
import { EXPRESSION_CLASSES, WORLD_CLASSES } from '../generative/world.ts';

/** What an input of a class deserves: an answer (valid), a rejection (invalid), or any answer but a 5xx (open). */
export type ClassIntent = 'valid' | 'invalid' | 'open';

/** One class of value of an input. */
export interface InputClass {
  id: string;
  intent: ClassIntent;
  /** What a value of the class is, in a few words. */
  says: string;
  /**
   * An open class whose values read as a value of the input's own grammar, written another way
   * (`+3`, `007`, `3.0` for 3): accepted, it must be answered as that value (every property judges
   * the answer as the answer to the value's canonical spelling); else refused with a 4xx.
   */
  same?: true;
}

/** The grammar an input follows and its classes. */
export interface InputRole {
  /** The rule the classes come from (a standard, facts.md, the interface's own words). */
  grammar: string;
  classes: readonly InputClass[];
}

/** The pseudo-input of a request as a whole: how it is encoded, what it carries besides the parameters. */
export const REQUEST_INPUT = '(request)';
/** The pseudo-input of a POST's Content-Type header. */
export const CONTENT_TYPE_INPUT = '(content-type)';
/** The pseudo-input of the subscription key's header field: its name and how its value is written. */
export const KEY_HEADER_INPUT = '(key-header)';
/** The pseudo-input of the Accept header field. */
export const ACCEPT_INPUT = '(accept)';
/** The pseudo-inputs every request has besides the spec's parameters, in the order the model lists them. */
export const HEADER_INPUTS = [CONTENT_TYPE_INPUT, KEY_HEADER_INPUT, ACCEPT_INPUT] as const;

const valid = (id: string, says: string): InputClass => ({ id, intent: 'valid', says });
const invalid = (id: string, says: string): InputClass => ({ id, intent: 'invalid', says });
const open = (id: string, says: string): InputClass => ({ id, intent: 'open', says });
const same = (id: string, says: string): InputClass => ({ id, intent: 'open', says, same: true });

/** A required input left out: invalid wherever the spec requires the input. */
export const MISSING = 'missing';

/** What each class of world.ts is (the characters real clients type). */
const WORLD_SAYS: Record<string, string> = {
  capitals: 'capital letters',
  accents: 'accented letters, composed (NFC)',
  decomposed: 'accented letters, decomposed (NFD)',
  combining: 'combining marks no precomposed letter exists for',
  cjk: 'Chinese, Japanese or Korean script',
  'right-to-left': 'Arabic or Hebrew script',
  emoji: 'emoji',
  apostrophe: 'an apostrophe',
  parentheses: 'parentheses or brackets',
  comma: 'a comma',
  digits: 'digits',
  'other-scripts': 'letters of another script (Cyrillic, Greek, Devanagari, Thai, Georgian)',
  symbols: 'symbols outside ASCII that are no emoji (∑ ≤ ½ € °)',
  quotes: 'double and typographic quotes and guillemets (" “ ” « »)',
  invisible:
    'characters that print as nothing (a zero-width space, a word joiner, a direction mark, a byte order mark, a soft hyphen)',
  astral: 'characters beyond the Basic Multilingual Plane that are no emoji (𝔤𝔯𝔞𝔭𝔥, 𠜎): a surrogate pair in UTF-16',
  'full-width': 'full-width forms of ASCII letters and digits (ｇｒａｐｈ, ＡＰＩ, １２３)',
};

/**
 * Characters of every free-text value: the world's classes, and RFC 3986's reserved characters and
 * the percent sign, which a value carries as text once percent-encoded (a server that decodes twice,
 * or splits on a reserved character, breaks on them).
 */
const TEXT_CHARACTERS: readonly InputClass[] = [
  valid('letters', 'lower-case letters and spaces only'),
  ...WORLD_CLASSES.map((name) => valid(name, WORLD_SAYS[name]!)),
  valid('gen-delims', 'RFC 3986 gen-delims as text (: / ? # [ ] @), percent-encoded on the wire'),
  valid('sub-delims', "RFC 3986 sub-delims as text (! $ & ' ( ) * + , ; =), percent-encoded on the wire"),
  valid('percent', 'a percent sign as text, alone or followed by hex digits (100%, %20), itself percent-encoded'),
  valid('plus', "a plus sign as text (c++): form encoding reads a bare '+' as a space, so it goes as %2B"),
  valid('form-delimiters', "'&' or '=' as text (r&d, x=y): what splits a form or query string into fields"),
  valid('hash', "'#' as text (c#, #tag): a bare '#' ends a URL's query"),
  valid('semicolon', "';' as text: a field separator some query parsers honour (HTML 4's advice, Python before 3.9.2)"),
  valid(
    'tilde-asterisk',
    "'~' or '*' as text: WHATWG's form encoder escapes '~' and leaves '*', RFC 3986 the other way round",
  ),
  valid('padded', 'white space at the ends (a space, a no-break space)'),
];

/** Free text that is no words: what a person or a program also types into a box. */
const NOT_WORDS: readonly InputClass[] = [
  valid('only-digits', 'digits only (2021, 3.14): a text that reads as a number'),
  valid('only-punctuation', 'punctuation and symbols only (?!, ..., ())'),
];

/**
 * The same integer written as the number parsers and formatters of common languages write or read it
 * (JSON's number grammar admits only the plain digits and the exponent): each is accepted and read as
 * that integer, or refused with a 4xx, never a 5xx.
 */
const NUMBER_FORMS: readonly InputClass[] = [
  same(
    'leading-zeros',
    "leading zeros (007): Java's Integer.parseInt, Python's int(), .NET's Int32.Parse and JavaScript's Number() read 7; JSON's grammar has no leading zero",
  ),
  same(
    'plus-sign',
    "a plus sign (+3, as printf's %+d and .NET's '+0' formats write): Java, Python, .NET and JavaScript parsers read 3",
  ),
  same(
    'exponent',
    "an exponent (3e0, 1E1): JSON's number grammar, JavaScript's Number() and Python's float(); how JavaScript, Python, Java and .NET write large doubles (1e+21, 1.0E7, 1E+16)",
  ),
  same(
    'point-zero',
    "a fraction of zero (3.0): how Python's str(), Java's Double.toString() and JSON writers of doubles write a whole number",
  ),
  same(
    'white-space',
    "white space around it (' 3'): Python's int(), .NET's Int32.Parse and JavaScript's Number() skip it",
  ),
  same('negative-zero', "-0: zero by JSON's grammar and every parser (Python's str(-0.0) writes it)"),
  same(
    'other-digits',
    "digits of another script (３, ٣): Python's int() and Java's Integer.parseInt read Unicode decimal digits",
  ),
];

/** Free text the interface leaves open: what a server may refuse but must not answer with a 5xx. */
const TEXT_OPEN: readonly InputClass[] = [
  open('control', 'a control character'),
  open('empty', 'the empty string'),
  open('blank', 'only spaces'),
];

/** Non-negative integers with a maximum (count, $top): boundaries and what is not one. */
function pageSize(maximum: number): InputRole {
  return {
    grammar: `a non-negative integer up to ${maximum} (the spec's maximum; the interface states none)`,
    classes: [
      valid('zero', '0, the lower boundary: an empty page'),
      valid('one', '1'),
      valid('several', `from 2 to ${maximum - 1}`),
      valid('maximum', `${maximum}, the spec's upper boundary`),
      open('above-maximum', `from ${maximum + 1} to 2147483647 (the interface states no maximum)`),
      open('beyond-int32', "2147483648 and beyond: past a 32-bit integer (Java's int, .NET's Int32)"),
      ...NUMBER_FORMS,
      invalid('negative', 'a negative integer'),
      invalid('non-numeric', 'not a number (ten, abc, true, NaN, Infinity)'),
      invalid('fractional', 'a fraction (1.5)'),
    ],
  };
}

const PAGE_START: InputRole = {
  grammar: 'a non-negative integer (offset, $skip)',
  classes: [
    valid('zero', '0, the lower boundary'),
    valid('small', 'from 1 to 4'),
    valid('deep', 'from 5 to 99999: past the first pages'),
    open('far', 'from 100000 to 2147483647: past any result'),
    open('beyond-int32', "from 2147483648 to 9007199254740991: past a 32-bit integer (Java's int, .NET's Int32)"),
    open(
      'beyond-safe-integer',
      'above 9007199254740991 (2^53 - 1): past what a double holds exactly (JavaScript, JSON parsers that read doubles), and from 2^63 past a 64-bit integer',
    ),
    ...NUMBER_FORMS,
    invalid('negative', 'a negative integer'),
    invalid('non-numeric', 'not a number'),
    invalid('fractional', 'a fraction'),
  ],
};

/** The attributes a list may name (facts.md's paper attributes). */
export const LIST_ATTRIBUTES = Object.keys(ATTRIBUTES);

const ATTRIBUTE_LIST: InputRole = {
  grammar: "comma-delimited names of facts.md's paper attributes, case-sensitive",
  classes: [
    ...LIST_ATTRIBUTES.map((name) => valid(`names-${name}`, `names ${name}`)),
    valid('single', 'one attribute alone'),
    valid('several', 'several attributes combined'),
    valid('composite-part', 'a part of a nested (composite) attribute, such as AA.AuN'),
    open('group-name', 'a composite group alone (AA, F): its parts are the attributes'),
    open('unknown', 'a name that is no attribute (Foo, Abstract)'),
    open('wrong-case', 'an attribute in the wrong case (ti)'),
    open('spaces', "names joined with ', ' as a list is written for people (Ti, Y)"),
    open(
      'trailing-comma',
      'a list ending in a comma (Ti,Y,), as a join that writes a separator after every name leaves it',
    ),
  ],
};

/** The attributes an expression may query (CC and ECC can be returned, not queried). */
export const QUERYABLE_ATTRIBUTES = Object.entries(ATTRIBUTES)
  .filter(([, rule]) => rule.equals || rule.prefix || rule.between)
  .map(([name]) => name);

/** Forms of a valid expression as classes (the values of the world and calendar boundaries are classes of their own). */
const EXPRESSION_FORMS = EXPRESSION_FEATURES.filter((feature) => feature !== 'world-value');

const EXPRESSION: InputRole = {
  grammar: "the academic query expression grammar of facts.md (interface 4.3: 'not shown')",
  classes: [
    ...EXPRESSION_FORMS.map((form) => valid(form, `the ${form} form`)),
    ...QUERYABLE_ATTRIBUTES.map((name) => valid(`attribute-${name}`, `a predicate on ${name}`)),
    ...EXPRESSION_CLASSES.map((name) => valid(`value-${name}`, `a quoted value with ${WORLD_SAYS[name]}`)),
    valid('interpret-output', "an interpretation's output expression (interface 1: usable as expr)"),
    ...EXPRESSION_MUTATIONS.map((mutation) => invalid(mutation, `breaks one rule of the grammar (${mutation})`)),
    ...EXPRESSION_EDGES.map((edge) => open(edge, `a form facts.md does not show (${edge})`)),
  ],
};

/** The roles by name; an input's role says which classes it takes. */
export const ROLES: Record<string, InputRole> = {
  'interpret-query': {
    grammar: 'any string a user types (interface 4.1); a prefix to complete with complete=1',
    classes: [
      valid('author', 'an author name'),
      valid('name-prefix', 'the start of a name, to complete'),
      valid('title', 'a title'),
      valid('words', 'words'),
      valid('author-and-year', 'an author and a year'),
      ...TEXT_CHARACTERS,
      ...NOT_WORDS,
      open('long', 'thousands of characters'),
      ...TEXT_OPEN,
    ],
  },
  'search-query': {
    grammar: 'any query (interface 4.9)',
    classes: [
      valid('known-query', 'a query the target answered before'),
      valid('entity-name', 'the name of an entity'),
      valid('words', 'words'),
      ...TEXT_CHARACTERS,
      ...NOT_WORDS,
      open('long', 'hundreds of characters'),
      ...TEXT_OPEN,
    ],
  },
  text: {
    grammar: 'any string (interface 4.7); a GET input bounded by the URL length only',
    classes: [
      valid('title', 'a title'),
      valid('words', 'words'),
      valid('same-as-other', 'the same text as the other input'),
      valid('punctuation', 'sentence punctuation (. ? ! : ;)'),
      valid('line-breaks', 'line breaks and tabs (a pasted abstract)'),
      valid('long', 'from 500 to 6,000 characters: a GET carries it too'),
      ...TEXT_CHARACTERS,
      ...NOT_WORDS,
      ...TEXT_OPEN,
    ],
  },
  'form-text': {
    grammar: 'any string (interface 4.8): a POST body of up to 1 MB',
    classes: [] as InputClass[],
  },
  expression: EXPRESSION,
  'attribute-list': ATTRIBUTE_LIST,
  orderby: {
    grammar: 'name, name:asc or name:desc (the spec pattern) of an attribute with one value per paper',
    classes: [
      ...['Y', 'D', 'CC', 'ECC'].flatMap((name) => [
        valid(`${name}-asc`, `${name}:asc`),
        valid(`${name}-desc`, `${name}:desc`),
        valid(`${name}-plain`, `${name} without a direction`),
      ]),
      open(
        'Ti',
        'Ti, a string with one value per paper, in either direction or none (which order strings take is not shown)',
      ),
      open('Id', 'Id, with one value per paper, in either direction or none (facts.md shows no order by it)'),
      open('multivalued', 'an attribute with several values per paper (AA.AuN, RId)'),
      invalid('malformed', 'not name, name:asc or name:desc (Y:up, Y desc)'),
    ],
  },
  'interpret-count': pageSize(10_000),
  'academic-count': pageSize(10_000),
  'search-count': pageSize(1_000),
  'event-top': pageSize(100),
  'page-start': PAGE_START,
  timeout: {
    grammar: 'a non-negative integer of milliseconds (the real service: default 1000, at most 5000)',
    classes: [
      valid('zero', '0'),
      valid('short', 'from 1 to 999'),
      valid('documented-range', 'from 1000 to 5000'),
      open('above-documented', 'from 5001 to 2147483647'),
      open('beyond-int32', "2147483648 and beyond: past a 32-bit integer (Java's int, .NET's Int32)"),
      ...NUMBER_FORMS,
      invalid('negative', 'a negative integer'),
      invalid('non-numeric', 'not a number'),
      invalid('fractional', 'a fraction'),
    ],
  },
  complete: {
    grammar: 'a boolean written 1 or 0 (interface 4.1)',
    classes: [
      valid('zero', '0: no completion'),
      valid('one', '1: complete the last word'),
      ...NUMBER_FORMS,
      invalid('out-of-range', 'a number other than 0 and 1'),
      invalid('non-numeric', 'yes, true, on'),
    ],
  },
  model: {
    grammar: "a model name; default 'latest' (interface 9.2)",
    classes: [
      valid('latest', 'latest'),
      open(
        'case-variant',
        'latest in another case (LATEST, Latest): whether model names read in any case is not shown',
      ),
      open('other', 'another name (the models a target has are not shown)'),
    ],
  },
  market: {
    grammar: "BCP 47 '<language>-<country>' (interface 4.9: en-US is a supported market)",
    classes: [
      valid('en-US', 'en-US, as the interface writes it'),
      open('case-variant', 'en-US in another case (en-us, EN-US): BCP 47 reads codes in any case'),
      open('other-market', 'another market (de-DE, ja-JP): the supported markets are not shown'),
      open(
        'script-subtag',
        'a BCP 47 tag with a script subtag (zh-Hans-CN, sr-Latn-RS), as .NET and Java write some cultures',
      ),
      open('numeric-region', 'a BCP 47 tag with a UN M.49 region (es-419): a region, not a country'),
      invalid('underscore', "a POSIX locale (en_US), as Java's Locale.toString() writes it, not BCP 47"),
      invalid('posix-encoding', "a POSIX locale with its codeset (en_US.UTF-8), as a process's LANG holds it"),
      invalid('language-only', 'a language without a country (en), as Accept-Language often carries it'),
      invalid('malformed', "not '<language>-<country>' (english, en-, enUS)"),
    ],
  },
  safesearch: {
    grammar: 'Off, Moderate or Strict (facts.md: all three accepted)',
    classes: [
      valid('Off', 'Off'),
      valid('Moderate', 'Moderate'),
      valid('Strict', 'Strict'),
      open('other-spelling', 'another value or spelling (strict, OFF, none)'),
    ],
  },
  url: {
    grammar: 'an absolute URL (RFC 3986; interface 4.10: not a valid URL yields 400)',
    classes: [
      valid('known-page', 'a page the target knows'),
      valid('with-query', 'with a query string'),
      valid('with-fragment', 'with a fragment'),
      valid('answer-url', 'the URL of a web page answer search returned'),
      open('unknown-site', 'a page that may not exist'),
      open('port', 'with a port'),
      open('percent-encoded-path', 'a percent-encoded path'),
      open('non-ascii-path', 'a path in another script (an IRI)'),
      open('international-host', 'a host in another script'),
      open('punycode-host', 'a host in its ASCII (punycode) form'),
      open('other-scheme', 'another scheme (ftp, mailto, file)'),
      open('long', 'thousands of characters'),
      open('control', 'a control character'),
      open('blank-around', 'spaces around it'),
      open('ip-literal', 'a host written as an IP address (127.0.0.1, [::1])'),
      open(
        'userinfo',
        'user and password before the host (https://user:secret@host/), which WHATWG URL parses and browsers refuse to show',
      ),
      open('dot-segments', 'dot segments in the path (/a/./b/../c), which RFC 3986 and WHATWG URL remove'),
      open(
        'upper-case-scheme-host',
        'scheme and host in upper case (HTTPS://WWW.EXAMPLE.COM/): case-insensitive by RFC 3986',
      ),
      open(
        'backslashes',
        "backslashes in the path (https://example.com\\a\\b), which WHATWG URL reads as '/' in http(s) URLs",
      ),
      invalid('empty', 'the empty string'),
      invalid('not-a-url', 'words'),
      invalid('relative', 'a relative reference'),
      invalid('scheme-only', 'a scheme without a host'),
      invalid('space-in-host', 'a space in the host'),
      invalid('bad-port', 'a port that is not a number'),
      invalid('invalid-host-character', 'a character a host cannot hold'),
    ],
  },
  date: {
    grammar: 'yyyy-mm-dd (interface 4.11), an RFC 3339 full-date',
    classes: [
      valid('with-events', 'a date the target has events for'),
      valid('any-date', 'a date of recent years'),
      valid('far-date', 'a date of another century'),
      valid('century-boundary', 'a year, century and leap boundary at once (2000-02-29, 1900-03-01)'),
      valid('leap-day', 'the 29th of February of a leap year'),
      valid('unix-epoch', '1970-01-01: the Unix epoch, a timestamp of 0 (a value some code takes for none)'),
      valid('before-epoch', 'a date before 1970: a negative Unix timestamp'),
      valid('y2038', '2038-01-19 or 2038-01-20: where a 32-bit time_t ends'),
      valid(
        'early-year',
        "a year before 1000, written with 4 digits (0999-12-31) as Python's isoformat() and Java's LocalDate write it",
      ),
      valid(
        'year-9999',
        "9999-12-31: the last day a 4-digit year holds (.NET's DateTime.MaxValue; the next day overflows)",
      ),
      open(
        'year-zero',
        '0000-01-01: a full-date of RFC 3339, the year 1 BC of ISO 8601, a year Python and .NET cannot hold',
      ),
      same('padded', "spaces around the date (' 2021-03-15'): lenient date parsers skip them"),
      invalid('empty', 'the empty string'),
      invalid('day-beyond-month', 'the 31st of a 30-day month'),
      invalid('february-30', 'the 30th of February'),
      invalid('february-29-common-year', 'the 29th of February of a common year'),
      invalid('month-13', 'month 13'),
      invalid('month-00', 'month 00'),
      invalid('day-00', 'day 00'),
      invalid('day-32', 'day 32'),
      invalid('other-format', 'a date in another format (2021/03/15, 20210315, yesterday)'),
      invalid(
        'date-time',
        "an RFC 3339 date-time, not a date (JavaScript's toISOString(), .NET's 's' and 'o' formats)",
      ),
      invalid('iso-week-date', 'the ISO 8601 week date of a day (2021-W11-1)'),
      invalid('ordinal-date', 'the ISO 8601 ordinal date of a day (2021-074)'),
      invalid(
        'expanded-year',
        "an ISO 8601 expanded year (+002021-03-15), as JavaScript's toISOString() writes years past 9999",
      ),
      invalid('non-ascii-digits', 'digits and dashes that only look like yyyy-mm-dd'),
      invalid('control', 'a control character'),
    ],
  },
  'encyclopedia-id': {
    grammar: 'an encyclopedia id: words joined by underscores (interface 4.12)',
    classes: [
      valid('known', 'an id the target returned events for'),
      valid('event-entity', 'an entity of an event the target returned'),
      valid('comma', 'a comma (Washington,_D.C.)'),
      valid('parentheses', 'a parenthesized qualifier ((film))'),
      valid('apostrophe', "an apostrophe (Côte_d'Ivoire)"),
      valid('accents', 'accented letters (Kraków)'),
      valid('other-script', 'another script (東京都)'),
      open('unknown', 'an id the target does not know'),
      open('reserved', 'RFC 3986 reserved characters (AT&T, C++, 100%)'),
      open('spaces', 'spaces for underscores (Barack Obama): the title as the encyclopedia shows it'),
      open('long', 'hundreds of characters'),
      ...TEXT_OPEN,
    ],
  },
  'event-id': {
    grammar: 'an event id, obtainable from hotevents and relatedevents (interface 4.13)',
    classes: [
      valid('known', 'an id the target returned'),
      valid('from-hot-events', 'an id hotevents returned in the same run'),
      valid(
        'percent-encoded',
        'a known id with every character percent-encoded in the path segment: the same segment by RFC 3986, section 6.2.2.2',
      ),
      open('upper-case', 'a known id in upper-case hex digits: another string, which a target may read as the same id'),
      open('unknown', 'an id of the right form the target does not know (the documented 404)'),
      open('malformed', 'an id of another form'),
      open(
        'segment-delimiters',
        "an id holding what WHATWG's path percent-encode set escapes (/ ? # ; and spaces), percent-encoded",
      ),
    ],
  },
  'get-request': {
    grammar: 'a query string (RFC 3986 query component, form-encoded)',
    classes: [
      valid('plus-encoded', "spaces as '+' (form encoding)"),
      valid('percent-encoded', "spaces as '%20'"),
      valid('every-byte-escaped', 'every byte percent-encoded, lower-case hex (the same text by RFC 3986)'),
      valid('empty-pairs', "empty fields ('&&', a leading or trailing '&'), which WHATWG's form parser skips"),
      open('unknown-parameter', 'a parameter the interface does not define'),
      open('repeated-parameter', 'a parameter given twice'),
      same(
        'empty-value',
        'an optional parameter with an empty value (count=), as query builders write a null: read as absent, or refused',
      ),
    ],
  },
  'post-request': {
    grammar: 'a form body (application/x-www-form-urlencoded; facts.md: real clients did not encode it)',
    classes: [
      valid('plus-encoded', "spaces as '+'"),
      valid('percent-encoded', "spaces as '%20'"),
      valid('unencoded', 'not percent-encoded at all, as real clients sent it'),
      valid(
        'every-byte-escaped',
        ".NET's HttpUtility.UrlEncode escapes in lower-case hex; every byte escaped so (the same text)",
      ),
      valid('empty-pairs', "empty fields ('&&', a leading or trailing '&'), which WHATWG's form parser skips"),
      invalid('json-body', 'JSON labelled application/json instead of a form'),
      open('unknown-parameter', 'a field the interface does not define'),
      open('repeated-parameter', 'a field given twice'),
      same('empty-value', 'an optional field with an empty value (count=): read as absent, or refused'),
    ],
  },
  'content-type': {
    grammar:
      'a media type (RFC 9110, section 8.3); the interface: form encoding is the type of the body, the header optional',
    classes: [
      valid('form', 'application/x-www-form-urlencoded, as the interface names it'),
      valid('charset', 'with a charset parameter (; charset=UTF-8), as Apache HttpClient and Spring write it'),
      valid(
        'upper-case',
        'the type in another letter case (Application/X-WWW-Form-Urlencoded): case-insensitive by RFC 9110',
      ),
      valid('quoted-charset', 'the charset as a quoted string (;charset="utf-8"), as RFC 9110, section 5.6.6 allows'),
      valid('absent', 'no Content-Type at all: the header is optional (interface 4.2)'),
      open('other-type', "text/plain;charset=UTF-8, what JavaScript's fetch() sends for a string body nobody labelled"),
    ],
  },
  'key-header': {
    grammar: 'the header field Ocp-Apim-Subscription-Key (RFC 9110, section 5.1: field names are case-insensitive)',
    classes: [
      valid('as-written', 'Ocp-Apim-Subscription-Key, as the interface writes it'),
      valid('lower-case', 'the name in lower case, as HTTP/2 and HTTP/3 clients send every name'),
      valid('upper-case', 'the name in upper case'),
    ],
  },
  accept: {
    grammar: 'the Accept header field (RFC 9110, section 12.5.1); the interface answers JSON',
    classes: [
      valid('absent', "no Accept, as Java's HttpClient and .NET's HttpClient send by default"),
      valid('any', '*/*, as curl and Python requests send'),
      valid('json-and-text', 'application/json, text/plain, */*, as axios sends'),
      valid('browser', "a browser's navigation Accept (text/html, ..., */*;q=0.8)"),
    ],
  },
};

/** The operation's id without its method suffix (evaluate for evaluateGet). */
function baseOf(operationId: string): string {
  return operationId.replace(/(Get|Post)$/, '');
}

/**
 * The role of an input of an operation (its name as the spec writes it), or undefined for an input
 * kgate has no classes for: the coverage test fails on such an input of the spec.
 */
export function roleOf(operationId: string, input: string, method: 'get' | 'post'): string | undefined {
  if (input === REQUEST_INPUT) return method === 'post' ? 'post-request' : 'get-request';
  if (input === CONTENT_TYPE_INPUT) return method === 'post' ? 'content-type' : undefined;
  if (input === KEY_HEADER_INPUT) return 'key-header';
  if (input === ACCEPT_INPUT) return 'accept';
  const base = baseOf(operationId);
  const byBase: Record<string, Record<string, string>> = {
    interpret: {
      query: 'interpret-query',
      complete: 'complete',
      count: 'interpret-count',
      offset: 'page-start',
      timeout: 'timeout',
      model: 'model',
    },
    evaluate: {
      expr: 'expression',
      model: 'model',
      count: 'academic-count',
      offset: 'page-start',
      orderby: 'orderby',
      attributes: 'attribute-list',
    },
    calchistogram: {
      expr: 'expression',
      model: 'model',
      attributes: 'attribute-list',
      count: 'academic-count',
      offset: 'page-start',
    },
    similarity: method === 'post' ? { s1: 'form-text', s2: 'form-text' } : { s1: 'text', s2: 'text' },
    answerSearch: {
      q: 'search-query',
      mkt: 'market',
      count: 'search-count',
      offset: 'page-start',
      safesearch: 'safesearch',
    },
    urlPreview: { q: 'url' },
    hotEvents: { date: 'date', $top: 'event-top', $skip: 'page-start' },
    relatedEvents: { wikipediaid: 'encyclopedia-id', $top: 'event-top', $skip: 'page-start' },
    eventDocuments: { event_id: 'event-id', $top: 'event-top', $skip: 'page-start' },
  };
  return byBase[base]?.[input];
}

// A POST's texts take a GET's classes and one more: longer than a GET carries.
ROLES['form-text'] = {
  grammar: ROLES['form-text']!.grammar,
  classes: [...ROLES.text!.classes, valid('very-long', 'over 6,000 characters: only a POST body carries it')],
};
