import type { FastifyReply } from 'fastify';
import type { Limits } from '../domain/plans.ts';
import { type RateStatus, secondsUntil } from '../domain/rate-decision.ts';

/**
 * The rate-limit headers of a response: the `X-RateLimit-*` set of the interface, and the IETF
 * `RateLimit-Policy` and `RateLimit` fields (draft-ietf-httpapi-ratelimit-headers-11), Structured
 * Field Lists (RFC 9651) of String Items named for the two windows, "minute" and "day":
 *
 *   RateLimit-Policy: "minute";q=60;w=60, "day";q=1000;w=86400   (quota, window in seconds)
 *   RateLimit: "minute";r=59;t=55                                 (requests left, seconds to go)
 *
 * `RateLimit` names the binding window, the one the X- set describes, with the same remaining
 * count and, as `t`, the seconds until its reset (Retry-After's value on a 429). Every request
 * sets them: the policy list is built once per set of limits, and the service limit is one
 * string from a prefix built once per window.
 */

const POLICIES = new WeakMap<Limits, string>();
const SERVICE_LIMIT_PREFIX = { minute: '"minute";r=', day: '"day";r=' } as const;

export function quotaPolicies(limits: Limits): string {
  let policies = POLICIES.get(limits);
  if (policies === undefined) {
    policies = `"minute";q=${limits.perMinute};w=60, "day";q=${limits.perDay};w=86400`;
    POLICIES.set(limits, policies);
  }
  return policies;
}

export function serviceLimit(status: RateStatus, nowMs: number): string {
  return `${SERVICE_LIMIT_PREFIX[status.window]}${status.remaining};t=${secondsUntil(nowMs, status.reset * 1000)}`;
}

/** While a key is banned, nothing is left in the minute until the ban ends. */
export function bannedServiceLimit(bannedUntilMs: number, nowMs: number): string {
  return `${SERVICE_LIMIT_PREFIX.minute}0;t=${secondsUntil(nowMs, bannedUntilMs)}`;
}

export function setRateLimitHeaders(reply: FastifyReply, status: RateStatus, nowMs: number): void {
  reply.header('x-ratelimit-limit', status.limit);
  reply.header('x-ratelimit-remaining', status.remaining);
  reply.header('x-ratelimit-reset', status.reset);
  reply.header('ratelimit-policy', quotaPolicies(status.limits));
  reply.header('ratelimit', serviceLimit(status, nowMs));
}

/** While banned, the ban binds: nothing remains until it ends. */
export function setBannedRateLimitHeaders(
  reply: FastifyReply,
  limits: Limits,
  bannedUntilMs: number,
  nowMs: number,
): void {
  reply.header('x-ratelimit-limit', limits.perMinute);
  reply.header('x-ratelimit-remaining', 0);
  reply.header('x-ratelimit-reset', Math.ceil(bannedUntilMs / 1000));
  reply.header('ratelimit-policy', quotaPolicies(limits));
  reply.header('ratelimit', bannedServiceLimit(bannedUntilMs, nowMs));
}
