// A key's call volume quota, used up: the interface's 403 (academic `{error:{code:'QuotaExceeded'}}`,
// answer search and URL preview `{error:{statusCode:403,message}}` stating when it is replenished)
// and a gateway's own answer, as facts.md's gateway section gives it: a 403 with a message such as
// "Out of call volume quota. Quota will be replenished in 5.03:23:11." (days.hours:minutes:seconds,
// days left out when zero) and a Retry-After in seconds. A quota that runs out is the deployment's
// budget ending, not a defect of the answers around it: kgate stops sending with that key and judges
// none of those answers.
import { retryAfterOf } from './throttle.ts';

/** What a quota answer said. */
export interface QuotaSignal {
  /** When the quota is replenished, as the answer wrote it (`5.03:23:11`, `23:59:59`), when it did. */
  replenishedIn?: string;
  /** The seconds until then: the message's time, else Retry-After. */
  seconds?: number;
  /** The answer's own words, its first line, trimmed. */
  message: string;
}

/** A quota's replenishment time as a gateway writes it: [days.]hours:minutes:seconds. */
const REPLENISHED_IN = /replenished in\s+((?:(\d+)\.)?(\d{1,2}):(\d{2}):(\d{2}))/i;
/** The words that say the quota, not the key, is the reason for a 403. */
const QUOTA_WORDS = /quota|call volume/i;

/** The message of an answer's body: a JSON body's message (or its error's), else its text. */
function messageOf(text: string): string {
  try {
    const json = JSON.parse(text) as {
      message?: unknown;
      error?: { message?: unknown; code?: unknown };
    };
    const message = json?.error?.message ?? json?.message;
    const code = json?.error?.code;
    return [typeof code === 'string' ? code : undefined, typeof message === 'string' ? message : undefined]
      .filter(Boolean)
      .join(': ');
  } catch {
    return text;
  }
}

/**
 * The quota an answer says is used up, or undefined for any other answer: a 403 whose body (JSON or
 * text, the interface's or a gateway's) says the quota or call volume is exceeded.
 */
export function quotaSignal(answer: {
  status: number;
  headers: Record<string, string>;
  body: Buffer | string;
}): QuotaSignal | undefined {
  if (answer.status !== 403) return undefined;
  const text = typeof answer.body === 'string' ? answer.body : answer.body.subarray(0, 16 * 1024).toString('utf8');
  const message = messageOf(text).replace(/\s+/g, ' ').trim().slice(0, 200);
  if (!QUOTA_WORDS.test(message) && !QUOTA_WORDS.test(text.slice(0, 4096))) return undefined;
  const time = REPLENISHED_IN.exec(text);
  const seconds = time
    ? Number(time[2] ?? 0) * 86_400 + Number(time[3]) * 3_600 + Number(time[4]) * 60 + Number(time[5])
    : retryAfterOf(answer.headers['retry-after']).seconds;
  return { message, ...(time ? { replenishedIn: time[1] } : {}), ...(seconds !== undefined ? { seconds } : {}) };
}

/** When a quota is replenished, in words: `in 5.03:23:11`, `in 86399 s`, or nothing when the answer said not. */
export function replenishedWords(signal: QuotaSignal): string {
  if (signal.replenishedIn) return `replenished in ${signal.replenishedIn}`;
  if (signal.seconds !== undefined) return `replenished in ${signal.seconds} s`;
  return 'replenished later';
}
