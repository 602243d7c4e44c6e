import { expect, it } from 'vitest';
import { startGraphQLServer } from './graphql-server.ts';

it.each([
  'subscription { petCreated { id } }',
  // The audit feed follows the store: its subscription is closed too, the store's read with it.
  'subscription { auditEvent { position } }',
])(
  'app.close() ends open subscriptions with complete instead of waiting for their clients: %s',
  async (query) => {
    const server = await startGraphQLServer();
    const client = new AbortController();
    try {
      const response = await fetch(server.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ query }),
        signal: client.signal,
      });
      const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
      await reader.read(); // the first ping: the subscription is live
      const closed = server.testApp.app.close().then(() => 'closed');
      const timeout = new Promise((resolve) => setTimeout(resolve, 3000, 'still open after 3 s'));
      expect(await Promise.race([closed, timeout])).toBe('closed');
      let rest = '';
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += chunk.value;
      expect(rest.endsWith('event: complete\ndata:\n\n')).toBe(true);
    } finally {
      client.abort(); // on failure, lets the server close
      await server.close();
    }
  },
);
