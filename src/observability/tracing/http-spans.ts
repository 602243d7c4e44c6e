import {
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  type Tracer,
} from '@opentelemetry/api';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { traceparentOf } from './trace-context.ts';

type RequestSpans = { readonly http: Span; guard: Span | undefined };

/**
 * A server span per request, continuing the caller's trace when it sends a W3C `traceparent`, and
 * within it a `guard` span for authentication and rate limiting (the guard's hooks run after this
 * plugin's onRequest and before any body is read). The request's span reaches the application
 * through `request.traceparent` (see request-context.ts).
 */
export function httpSpans(tracer: Tracer): FastifyPluginAsync {
  const spans = new WeakMap<FastifyRequest, RequestSpans>();
  const endGuard = (request: FastifyRequest, failed: boolean) => {
    const open = spans.get(request);
    if (open?.guard === undefined) return;
    if (failed) open.guard.setStatus({ code: SpanStatusCode.ERROR });
    open.guard.end();
    open.guard = undefined;
  };
  /** Ends the request's spans: once its response finished, or closed before it did. */
  const endRequest = (request: FastifyRequest, reply: FastifyReply, closedEarly: boolean) => {
    endGuard(request, reply.statusCode >= 400);
    const open = spans.get(request);
    if (open === undefined) return;
    spans.delete(request);
    const route = request.routeOptions.url;
    if (route !== undefined) open.http.updateName(`${request.method} ${route}`);
    const response = reply.raw;
    open.http.setAttributes({
      // A client that left before the answer began never had one.
      ...(response.headersSent ? { 'http.response.status_code': reply.statusCode } : {}),
      ...(closedEarly && { 'petstore.closed_early': true }),
      ...(route === undefined ? {} : { 'http.route': route }),
      ...(request.apiKey ? { 'petstore.api_key_id': request.apiKey.keyId } : {}),
    });
    if (reply.statusCode >= 500) open.http.setStatus({ code: SpanStatusCode.ERROR });
    open.http.end();
  };
  return fp(
    async (app) => {
      app.decorateRequest('traceparent', undefined);
      app.addHook('onRequest', (request, _reply, done) => {
        const parent = propagation.extract(ROOT_CONTEXT, request.headers);
        const http = tracer.startSpan(
          `${request.method}`,
          {
            kind: SpanKind.SERVER,
            attributes: { 'http.request.method': request.method, 'petstore.request_id': request.id },
          },
          parent,
        );
        const guard = tracer.startSpan('guard', {}, trace.setSpan(parent, http));
        spans.set(request, { http, guard });
        request.traceparent = traceparentOf(http.spanContext());
        done();
      });
      app.addHook('preParsing', (request, _reply, payload, done) => {
        endGuard(request, false);
        done(null, payload);
      });
      // A request the router refused (a malformed path) runs no hook: one span, for its answer.
      app.unroutedAnswers.push((request, reply) => {
        const span = tracer.startSpan(
          request.method,
          {
            kind: SpanKind.SERVER,
            startTime: performance.timeOrigin + performance.now() - reply.elapsedTime,
            attributes: {
              'http.request.method': request.method,
              'petstore.request_id': request.id,
              'http.response.status_code': reply.statusCode,
              ...(request.apiKey ? { 'petstore.api_key_id': request.apiKey.keyId } : {}),
            },
          },
          propagation.extract(ROOT_CONTEXT, request.headers),
        );
        span.end();
      });
      app.addHook('onResponse', (request, reply, done) => {
        endRequest(request, reply, false);
        done();
      });
      // A stream its client left, a client that gave up waiting: no onResponse for those.
      app.onClosedEarly((request, reply) => endRequest(request, reply, true));
    },
    { name: 'http-spans' },
  );
}
