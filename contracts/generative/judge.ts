// What every generated request is judged on besides the request fixture's checks (transport,
// content type, JSON, schema): no 5xx for any input, a 2xx for valid input, a 4xx for invalid.
import type { Group } from '../../openapi/spec.ts';
import { isSameValueItem } from '../coverage/inputs.ts';
import { caseItems } from '../coverage/plan.ts';
import { excerpt, type Failure, show } from '../failure.ts';
import { field } from '../json.ts';
import type { GeneratedCase } from './cases.ts';

/** Check ids of the generative phase, as registered in contracts/checks/. */
export const GENERATIVE_CHECKS = {
  noServerError: 'no-server-error',
  positiveAccepted: 'positive-input-accepted',
  negativeRejected: 'negative-input-rejected',
} as const;

/** What the judge needs of a response. */
export interface JudgedResponse {
  operation: string;
  status: number;
  json: unknown;
  text: string;
  curl: string;
}

/** Statuses about the key, not the input (auth, quota, rate limit): they judge no generated input. */
const KEY_STATUSES = new Set([401, 403, 429]);

/** Groups that document a 400 for a missing or invalid parameter (event knowledge documents none). */
const DOCUMENTED_400: ReadonlySet<Group> = new Set(['academic', 'similarity', 'answerSearch', 'urlPreview']);

/**
 * A short, stable description of an error answer: its code (academic `error.code`, answer search
 * `errors[0].code/subCode`, event knowledge `statusCode`) and the start of its message with
 * numbers and quoted values blanked, so the same error from different inputs reads the same.
 */
export function errorSignature(json: unknown, text: string): string {
  const error = field(json, 'error');
  const first = Array.isArray(field(json, 'errors')) ? (field(json, 'errors') as unknown[])[0] : undefined;
  const code =
    field(error, 'code') ??
    (first ? [field(first, 'code'), field(first, 'subCode')].filter(Boolean).join('/') : undefined) ??
    field(error, 'statusCode') ??
    field(json, 'statusCode');
  const message = field(error, 'message') ?? field(first, 'message') ?? field(json, 'message') ?? text;
  const normalized = String(message)
    .toLowerCase()
    .replace(/'[^']*'|"[^"]*"/g, '…')
    .replace(/\d+/g, 'N')
    .replace(/\s+/g, ' ')
    .trim();
  const short = normalized.length <= 60 ? normalized : `${normalized.slice(0, 60).replace(/\s+\S*$/, '')}…`;
  return [code === undefined || code === '' ? undefined : String(code), short || undefined].filter(Boolean).join(': ');
}

/** A word of a shell command line: as it is when the shell reads it so, else in single quotes. */
export function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * The seed line of a generated finding: the seed, the case, and the command that sends it again,
 * to `target` (the deployment's base URL; none for the embedded reference server, which the command
 * judges when nothing names a target).
 */
export function seedLine(
  c: Pick<GeneratedCase, 'seed' | 'operationId' | 'index' | 'kind' | 'assigned' | 'items'>,
  detail?: string,
  target?: string,
): string {
  const command = `kgate fuzz${target ? ` --base-url ${shellWord(target)}` : ''} --seed ${c.seed}`;
  // A planned case is sent again by its seed and the items it was planned for (contracts/coverage).
  const items = c.assigned ?? c.items;
  if (items && items.length > 0)
    return `${c.seed}, ${c.operationId} ${c.kind} (${items.length} item(s)${detail ? `; ${detail}` : ''}): ${command} --items ${shellWord(items.join(','))}`;
  return `${c.seed}, ${c.operationId} case ${c.index} (${c.kind}${detail ? `; ${detail}` : ''}): ${command} --cases ${c.operationId}:${c.index}`;
}

/** Whether every class a case carries is a value written another way (classes.ts `same`). */
function sameValuesOnly(c: GeneratedCase): boolean {
  const items = caseItems(c, true);
  return items.length > 0 && items.every(isSameValueItem);
}

/** What a negative case must get: 400 where the group documents it, else any 4xx (a wrong content type: any 4xx). */
function negativeExpectation(c: GeneratedCase, group: Group): { ok(status: number): boolean; text: string } {
  if (!DOCUMENTED_400.has(group) || c.contentType !== undefined) {
    return {
      ok: (status) => status >= 400 && status < 500,
      text: 'a 4xx (the interface documents no status for this case)',
    };
  }
  return { ok: (status) => status === 400, text: "400 in the group's documented error shape" };
}

/**
 * Judges one generated request by its answer: a 5xx fails no-server-error whatever the input
 * (a documented 500 too: input a server cannot process deserves a 4xx); otherwise a valid input
 * must get a 2xx and an invalid one a 4xx (400 where the group documents it). Answers about the
 * key (401, 403, 429) judge no input. Edge cases are judged by no-server-error alone, but for values written another way (same-value classes), which a group documenting a 400 must refuse with it.
 */
export function judgeCase(c: GeneratedCase, group: Group, response: JudgedResponse): Failure[] {
  const { status } = response;
  const signature = status >= 400 ? errorSignature(response.json, response.text) : '';
  const base = {
    operation: response.operation,
    excerpt: excerpt(response.text),
    curl: response.curl,
    seed: seedLine(c),
    origin: 'check' as const,
  };
  const received = `status ${status}${signature ? ` (${signature})` : ''} for a generated ${c.intent} request: ${c.kind}`;
  if (status >= 500) {
    return [
      {
        ...base,
        check: GENERATIVE_CHECKS.noServerError,
        title: `status ${status} for a generated request${signature ? ` (${signature})` : ''}`,
        received,
        documented: `no 5xx for any input (documented 500s included): input a server cannot process deserves a 4xx${c.intent === 'negative' ? `; this one breaks one rule: ${c.note}` : ''}`,
      },
    ];
  }
  // A value written another way (+3, 007) is accepted as that value or refused as any invalid value
  // is: with the group's 400 where the group documents one.
  if (
    c.intent === 'edge' &&
    status >= 400 &&
    status < 500 &&
    !KEY_STATUSES.has(status) &&
    status !== 400 &&
    DOCUMENTED_400.has(group) &&
    sameValuesOnly(c)
  )
    return [
      {
        ...base,
        check: GENERATIVE_CHECKS.negativeRejected,
        title: `a value written another way refused with ${status}`,
        received,
        documented: `accepted and read as the same value, or refused with the group's 400 (a parameter invalid: interface 7): ${c.note}`,
      },
    ];
  // A 401 to the full key written in another form of its field (a name's case) refused the form, not the key.
  const keyForm = status === 401 && c.headers?.keyHeader !== undefined;
  if ((KEY_STATUSES.has(status) && !keyForm) || c.intent === 'edge') return [];
  if (c.intent === 'positive') {
    if ((status >= 200 && status < 300) || (c.alsoAccepted ?? []).includes(status)) return [];
    return [
      {
        ...base,
        check: GENERATIVE_CHECKS.positiveAccepted,
        title: `valid generated request answered ${status}${signature ? ` (${signature})` : ''}`,
        received,
        documented: `a 2xx${c.alsoAccepted?.length ? ` (or ${c.alsoAccepted.join(', ')})` : ''}: ${c.note}`,
      },
    ];
  }
  const expectation = negativeExpectation(c, group);
  if (expectation.ok(status)) return [];
  const accepted = status >= 200 && status < 300;
  return [
    {
      ...base,
      check: GENERATIVE_CHECKS.negativeRejected,
      title: accepted
        ? `invalid generated request accepted (status ${status})`
        : `invalid generated request answered ${status}`,
      received: accepted ? `${received}; body ${show(response.text, 80)}` : received,
      documented: `${expectation.text}, never a 2xx: ${c.note}`,
    },
  ];
}
