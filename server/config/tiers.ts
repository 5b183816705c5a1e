// The tier table (spec "Limits": envelope quotas and the compact tier table; docs/design.md "Tiers" adds
// `unlimited`), with what each tier may hold open while streaming. docs/accounts.md carries the same
// table; test/accounts/quota.test.ts pins it. The tier names are listed here, once: API_KEYS
// parsing, the key CLI, /openapi.json and the table below all read this list.

export const TIER_NAMES = ['free', 'pro', 'team', 'scale', 'unlimited'] as const;
export type TierName = (typeof TIER_NAMES)[number];

export function isTierName(value: unknown): value is TierName {
  return typeof value === 'string' && (TIER_NAMES as readonly string[]).includes(value);
}

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
  /** Streaming sessions one account may hold open at once; null = bounded by the server total only. */
  streamSessions: number | null;
  /**
   * Pushes per second all of one account's streaming sessions on a node may send together (a burst
   * of one second's worth); null = only each session's own push rate. A session costs one request
   * at `start`; this keeps pushes from being a way around that (server/streaming/push-rate.ts).
   */
  streamPushesPerSecond: number | null;
}

// Degraded service (past the monthly quota on a 'degraded' tier): still served, every answer with
// the QUOTA_EXCEEDED warning, at a tenth of the tier's rate (free rounded down to 5 a minute), per
// account. docs/accounts.md defines it for users.
export const TIERS: Readonly<Record<TierName, Readonly<Tier>>> = Object.freeze({
  free: { name: 'free', perMinute: 60, monthlyQuota: 1_000, overage: 'degraded', degradedPerMinute: 5, overageUsdPer1k: null, streamSessions: 5, streamPushesPerSecond: 200 },
  pro: { name: 'pro', perMinute: 300, monthlyQuota: 100_000, overage: 'degraded', degradedPerMinute: 30, overageUsdPer1k: null, streamSessions: 25, streamPushesPerSecond: 1_000 },
  team: { name: 'team', perMinute: 1_000, monthlyQuota: 1_000_000, overage: 'billed', degradedPerMinute: null, overageUsdPer1k: 0.3, streamSessions: 100, streamPushesPerSecond: 3_000 },
  // The spec prices no overage for scale, so it is treated like pro rather than billed silently.
  scale: { name: 'scale', perMinute: 1_000, monthlyQuota: 1_000_000, overage: 'degraded', degradedPerMinute: 100, overageUsdPer1k: null, streamSessions: 250, streamPushesPerSecond: 3_000 },
  unlimited: { name: 'unlimited', perMinute: null, monthlyQuota: null, overage: 'none', degradedPerMinute: null, overageUsdPer1k: null, streamSessions: null, streamPushesPerSecond: null },
});
