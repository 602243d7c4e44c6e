import { afterEach, describe, expect, it } from 'vitest';
import { apiKeyGuard } from '../../src/http/guard.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

/** The developer pages' switch, and how their files are served. */

let t: TestApp | undefined;
afterEach(async () => t?.close());

describe('DEV_PAGES', () => {
  it.each([
    ['production by default', { NODE_ENV: 'production' }],
    ['DEV_PAGES=false', { DEV_PAGES: 'false' }],
  ])('leaves out /graphiql and /docs: %s', async (_, env) => {
    t = await startTestApp({ env });
    for (const url of ['/graphiql', '/docs']) expect((await t.app.inject({ url })).statusCode).toBe(404);
  });

  it('serves both pages in development, public and under the per-address limit', async () => {
    t = await startTestApp({
      env: { NODE_ENV: 'development' },
      guard: (service) => apiKeyGuard(service.auth),
    });
    for (const url of ['/graphiql', '/docs']) {
      const response = await t.app.inject({ url });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.headers['x-ratelimit-limit']).toBe('20');
    }
  });

  it('serves the pages’ scripts from this server, at versioned paths a browser may keep', async () => {
    t = await startTestApp({ env: { NODE_ENV: 'development' } });
    const page = (await t.app.inject({ url: '/docs' })).body;
    const scripts = [...page.matchAll(/(?:src|href)="([^"]+)"/g)]
      .map((match) => match[1]!)
      .filter((url) => url !== 'data:,');
    expect(scripts).toEqual([
      expect.stringMatching(/^\/docs\/assets\/\d+\.\d+\.\d+\/swagger-ui\.css$/),
      expect.stringMatching(/^\/docs\/assets\/\d+\.\d+\.\d+\/swagger-ui-bundle\.js$/),
    ]);
    const script = await t.app.inject({ url: scripts[1]! });
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(script.body).toContain('SwaggerUIBundle');
  });

  it('answers another method on the pages and their files with 405 and Allow, without a key', async () => {
    t = await startTestApp({
      env: { NODE_ENV: 'development' },
      guard: (service) => apiKeyGuard(service.auth),
    });
    const page = (await t.app.inject({ url: '/graphiql' })).body;
    const script = page.match(/src="([^"]+\.js)"/)![1]!;
    for (const url of ['/graphiql', '/docs', script]) {
      const response = await t.app.inject({ method: 'POST', url });
      expect([response.statusCode, response.headers.allow, response.json().code]).toEqual([
        405,
        'GET, HEAD',
        'method_not_allowed',
      ]);
    }
  });
});
