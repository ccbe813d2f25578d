// A deployment's request quota (--quota 10000/month, `quota` in the configuration file) and a run's
// share of it: what the month has left, by the requests the runs of the ledger sent in it, and never
// more than --max-requests. The announcement says how many verdicts of the run's size the month holds
// and how long a full cycle of every item takes at one run per push.
import { formatQuota, type Quota } from '../config/quota.ts';
import { type Ledger, sentInMonth } from './ledger.ts';

/** A run's share of its quota. */
export interface QuotaShare {
  quota: Quota;
  /** Requests the ledger's runs sent this calendar month (UTC); absent without a ledger. */
  sent?: number;
  /** What the month has left: the quota less what was sent. */
  left: number;
  /** The run's budget: what is left, and no more than --max-requests. */
  maxRequests: number;
  /** Days in this calendar month. */
  days: number;
}

/** A run's share of the quota at `now`: what the month has left (by the ledger's runs), at most `maxRequests`. */
export function quotaShare(
  quota: Quota,
  maxRequests: number | undefined,
  ledger: Ledger | undefined,
  now: Date,
): QuotaShare {
  const sent = ledger ? sentInMonth(ledger, now) : undefined;
  const left = Math.max(0, quota.requests - (sent ?? 0));
  const days = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 0)).getUTCDate();
  return {
    quota,
    ...(sent !== undefined ? { sent } : {}),
    left,
    maxRequests: Math.min(maxRequests ?? left, left),
    days,
  };
}

/** The budget a quota gives, in words: `--quota 10000/month: 9713 left this month`. */
export function quotaText(share: QuotaShare): string {
  return `--quota ${formatQuota(share.quota)}: ${share.left} left this month${share.sent === undefined ? '' : ` (${share.sent} sent by the ledger's runs)`}`;
}

/**
 * The quota's line of a run's announcement: how many verdicts of this run's size the month holds,
 * how many of them are left, and how long a full cycle of every item takes at one run per push,
 * the month's verdicts spread over its days.
 */
export function describeQuota(share: QuotaShare, requests: number, cycle: number | undefined): string {
  const size = Math.max(1, requests);
  const verdicts = Math.floor(share.quota.requests / size);
  const left = Math.floor(share.left / size);
  const perDay = verdicts / share.days;
  const days = cycle === undefined || perDay <= 0 ? undefined : cycle / perDay;
  const span =
    days === undefined
      ? cycle === undefined
        ? ''
        : '; the month holds too few of them for a full cycle'
      : `; at one run per push a full cycle (about ${cycle} run${cycle === 1 ? '' : 's'}) takes ${days <= 1 ? 'a day or less' : `about ${days < 10 ? days.toFixed(1) : Math.ceil(days)} days`} of pushes at that rate (${perDay < 10 ? perDay.toFixed(1) : Math.floor(perDay)} runs a day)`;
  return `kgate conform: quota ${formatQuota(share.quota)}: the month holds about ${verdicts} verdict${verdicts === 1 ? '' : 's'} of this run's size (about ${size} requests), ${left} of them left this month${share.sent === undefined ? ' (no --ledger: what other runs sent this month is not known)' : ` (${share.sent} of ${share.quota.requests} sent by the ledger's runs)`}${span}`;
}
