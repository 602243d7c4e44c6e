import { type Context, propagation, ROOT_CONTEXT, type SpanContext } from '@opentelemetry/api';

/** A span's W3C `traceparent`: `00-<trace id>-<span id>-<flags>`. */
export function traceparentOf(span: SpanContext): string {
  return `00-${span.traceId}-${span.spanId}-${span.traceFlags.toString(16).padStart(2, '0')}`;
}

/** The context a `traceparent` names (the root context when there is none or it is malformed). */
export function contextOf(traceparent: unknown): Context {
  return typeof traceparent === 'string' ? propagation.extract(ROOT_CONTEXT, { traceparent }) : ROOT_CONTEXT;
}
