// The one reading of a request quota, for --quota and the configuration file's `quota`: a whole
// number of requests a month, written `10000/month`, as the deployments' plans state it.

/** Most requests a month a quota may name. */
export const QUOTA_MOST = 1_000_000_000;

/** A quota in words, as every message about one says it. */
export const QUOTA_RULE = `N/month, N a whole number of requests from 1 to ${QUOTA_MOST} (such as 10000/month)`;

/** A request quota: so many requests a calendar month. */
export interface Quota {
  requests: number;
  per: 'month';
}

/** A quota that breaks its rule: the reason in words. */
export class QuotaError extends Error {
  override name = 'QuotaError';
}

/** Reads `10000/month` (spaces and the case of the unit aside); throws QuotaError. */
export function parseQuota(raw: string): Quota {
  const match = /^\s*(\d+)\s*\/\s*(month)\s*$/i.exec(raw);
  if (!match) throw new QuotaError(/^\s*\d+\s*$/.test(raw) ? 'no period: write N/month' : 'not N/month');
  const requests = Number(match[1]);
  if (!Number.isSafeInteger(requests) || requests < 1 || requests > QUOTA_MOST) throw new QuotaError('out of range');
  return { requests, per: 'month' };
}

/** A quota as it is written: `10000/month`. */
export function formatQuota(quota: Quota): string {
  return `${quota.requests}/${quota.per}`;
}
