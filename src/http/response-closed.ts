import type { ServerResponse } from 'node:http';

/**
 * Runs `then` once `response` has closed, however it ends: at once when it has closed already. A
 * request that waited before its handler (X-Min-Position) may have lost its client meanwhile, and
 * a response's 'close' is emitted once: a listener added after it would never run.
 */
export function afterClose(response: ServerResponse, then: () => void): void {
  if (response.closed) then();
  else response.once('close', then);
}
