import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../../src/shared/errors.ts';
import { errorHandler } from '../../src/http/error-handler.ts';

async function appThrowing(error: unknown) {
  const logged: unknown[] = [];
  const app = Fastify({
    loggerInstance: {
      level: 'error',
      error: (entry: unknown) => logged.push(entry),
      warn() {},
      info() {},
      debug() {},
      trace() {},
      fatal() {},
      silent() {},
      child() {
        return this;
      },
    } as never,
  });
  app.setErrorHandler(errorHandler);
  app.get('/boom', async () => {
    throw error;
  });
  return { app, logged };
}

describe('errorHandler', () => {
  it('renders a deliberate error with its own code and status', async () => {
    const { app } = await appThrowing(new NotFoundError('No pet has the id 4.'));
    const response = await app.inject({ method: 'GET', url: '/boom' });
    expect(response.json()).toEqual({ code: 'not_found', message: 'No pet has the id 4.', status: 404 });
  });

  it('hides an unexpected error behind a generic 500 and logs it', async () => {
    const { app, logged } = await appThrowing(new TypeError('secret internals at /srv/db.ts:12'));
    const response = await app.inject({ method: 'GET', url: '/boom' });
    expect(response.statusCode).toBe(500);
    expect(response.json()).toEqual({
      code: 'internal_error',
      message: 'The server failed to handle the request. It has been logged.',
      status: 500,
    });
    expect(response.body).not.toContain('secret');
    expect(logged).toEqual([
      { err: expect.objectContaining({ message: 'secret internals at /srv/db.ts:12' }) },
    ]);
  });

  it('treats a SyntaxError thrown by a handler as a logged 500, not as invalid JSON from the client', async () => {
    const { app, logged } = await appThrowing(new SyntaxError('Unexpected token } in a stored snapshot'));
    const response = await app.inject({ method: 'GET', url: '/boom' });
    expect(response.statusCode).toBe(500);
    expect(response.json()).toEqual({
      code: 'internal_error',
      message: 'The server failed to handle the request. It has been logged.',
      status: 500,
    });
    expect(logged).toHaveLength(1);
    expect(logged[0]).toEqual({ err: expect.any(SyntaxError) });
  });
});
