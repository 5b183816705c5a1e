// The tier table (spec "Limits": envelope quotas and the compact tier table; docs/design.md "Tiers" adds
// `unlimited`). docs/accounts.md carries the same table; test/accounts/quota.test.ts pins it.
import type { TierName } from './key-record.js';

export interface Tier {
  name: TierName;
  /** Requests per minute; null = not rate limited. */
  perMinute: number | null;
  /** Repairs per calendar month (UTC); null = no quota. */
  monthlyQuota: number | null;
  /** What happens past the quota. */
  overage: 'degraded' | 'billed' | 'none';
  /** Per-minute rate while degraded (past the quota). */
  degradedPerMinute: number | null;
  /** Billing price of overage, dollars per 1,000 repairs ('billed' tiers only). */
  overageUsdPer1k: number | null;
}

/** Degraded service = the free tier's per-minute rate plus the QUOTA_EXCEEDED warning. */
export const DEGRADED_PER_MINUTE = 60;

export const TIERS: Readonly<Record<TierName, Readonly<Tier>>> = Object.freeze({
  free: { name: 'free', perMinute: 60, monthlyQuota: 1_000, overage: 'degraded', degradedPerMinute: DEGRADED_PER_MINUTE, overageUsdPer1k: null },
  pro: { name: 'pro', perMinute: 300, monthlyQuota: 100_000, overage: 'degraded', degradedPerMinute: DEGRADED_PER_MINUTE, overageUsdPer1k: null },
  team: { name: 'team', perMinute: 1_000, monthlyQuota: 1_000_000, overage: 'billed', degradedPerMinute: null, overageUsdPer1k: 0.3 },
  // The spec prices no overage for scale, so it is treated like pro rather than billed silently.
  scale: { name: 'scale', perMinute: 1_000, monthlyQuota: 1_000_000, overage: 'degraded', degradedPerMinute: DEGRADED_PER_MINUTE, overageUsdPer1k: null },
  unlimited: { name: 'unlimited', perMinute: null, monthlyQuota: null, overage: 'none', degradedPerMinute: null, overageUsdPer1k: null },
});
