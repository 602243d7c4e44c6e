import {
  type Context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  type SpanContext,
  SpanStatusCode,
} from '@opentelemetry/api';

/** A span's W3C `traceparent`: `00-<trace id>-<span id>-<flags>`. */
export function traceparentOf(span: SpanContext): string {
  return `00-${span.traceId}-${span.spanId}-${span.traceFlags.toString(16).padStart(2, '0')}`;
}

/** The context a `traceparent` names (the root context when there is none or it is malformed). */
export function contextOf(traceparent: unknown): Context {
  return typeof traceparent === 'string' ? propagation.extract(ROOT_CONTEXT, { traceparent }) : ROOT_CONTEXT;
}

/** Runs `work`, then ends `span`: a failure is recorded on it as an exception, with status ERROR, and rethrown. */
export async function endedAfter<T>(span: Span, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    span.recordException(error as Error);
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw error;
  } finally {
    span.end();
  }
}
