import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { serveAssets } from '../../src/http/dev-pages/assets.ts';

/** How the developer pages' files are read and kept (src/http/dev-pages/assets.ts). */

describe('serveAssets', () => {
  it('reads a file again on the next request after a read that failed', async () => {
    const app = Fastify();
    let reads = 0;
    serveAssets(app, {
      '/asset.js': {
        type: 'text/javascript; charset=utf-8',
        body: async () => {
          reads += 1;
          if (reads === 1) throw new Error('EMFILE: too many open files');
          return 'ok();';
        },
      },
    });
    try {
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await app.inject({ url: '/asset.js' })).statusCode);
      expect([statuses, reads]).toEqual([[500, 200, 200], 2]);
    } finally {
      await app.close();
    }
  });
});
