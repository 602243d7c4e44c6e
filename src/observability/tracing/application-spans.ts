import { context, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import { isAppError } from '../../shared/errors.ts';
import type { RequestContext } from '../../shared/context.ts';
import { contextOf, traceparentOf } from './trace-context.ts';

type Method = (...args: unknown[]) => unknown;

/**
 * The application with a span around every call that carries a RequestContext (its commands, and
 * queries that say who asks), as a child of the caller's span. The span is active while the call
 * runs, so the store's append spans nest inside it. Other functions pass through untouched.
 */
export function traceApplication<A extends object>(application: A, tracer: Tracer): A {
  const traced = Object.entries(application).map(([name, value]) => [
    name,
    typeof value === 'function' ? traceCalls(name, value as Method, tracer) : value,
  ]);
  return Object.fromEntries(traced) as A;
}

function traceCalls(name: string, method: Method, tracer: Tracer): Method {
  return (...args) => {
    const at = args.findIndex(isRequestContext);
    if (at === -1) return method(...args);
    const caller = args[at] as RequestContext;
    const span = tracer.startSpan(
      name,
      { attributes: { 'petstore.request_id': caller.correlationId } },
      contextOf(caller.traceparent),
    );
    const withSpan = [...args];
    withSpan[at] = { ...caller, traceparent: traceparentOf(span.spanContext()) };
    const ended = (error?: unknown) => {
      if (error !== undefined) {
        span.recordException(error as Error);
        if (!isAppError(error)) span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    };
    try {
      const result = context.with(trace.setSpan(context.active(), span), () => method(...withSpan));
      if (!(result instanceof Promise)) {
        ended();
        return result;
      }
      return result.then(
        (value: unknown) => {
          ended();
          return value;
        },
        (error: unknown) => {
          ended(error);
          throw error;
        },
      );
    } catch (error) {
      ended(error);
      throw error;
    }
  };
}

function isRequestContext(value: unknown): value is RequestContext {
  return (
    typeof value === 'object' && value !== null && typeof (value as RequestContext).correlationId === 'string'
  );
}
