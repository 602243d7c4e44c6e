import { Writable } from 'node:stream';
import pino from 'pino';
import { expect, it } from 'vitest';
import { LazyRequestLogger } from '../../src/http/request-logger.ts';

function capturedLogger(level = 'info') {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      callback();
    },
  });
  const logger = pino({ level }, stream);
  let children = 0;
  const child = logger.child.bind(logger);
  logger.child = ((...args: Parameters<typeof child>) => {
    children++;
    return child(...args);
  }) as typeof logger.child;
  return { logger, lines, children: () => children };
}

it('makes no child logger for a request that logs nothing', () => {
  const { logger, children } = capturedLogger();
  const requestLogger = new LazyRequestLogger(logger, { reqId: 'r-1' }, {});
  expect([requestLogger.level, children()]).toEqual(['info', 0]);
});

it('logs with the request id among its bindings once the request logs', async () => {
  const { logger, lines } = capturedLogger();
  const requestLogger = new LazyRequestLogger(logger, { reqId: 'r-2' }, {});
  requestLogger.error({ err: new Error('boom') }, 'unexpected error');
  await new Promise((resolve) => setImmediate(resolve));
  expect(lines).toMatchObject([{ level: 50, reqId: 'r-2', msg: 'unexpected error' }]);
});

it('makes its child once, however often the request logs', () => {
  const { logger, children } = capturedLogger();
  const requestLogger = new LazyRequestLogger(logger, { reqId: 'r-3' }, {});
  requestLogger.warn('one');
  requestLogger.info('two');
  expect(children()).toBe(1);
});

it('honours a per-route log level given in its options', async () => {
  const { logger, lines } = capturedLogger('info');
  const requestLogger = new LazyRequestLogger(logger, { reqId: 'r-4' }, { level: 'error' });
  requestLogger.info('hidden');
  requestLogger.error('shown');
  await new Promise((resolve) => setImmediate(resolve));
  expect([requestLogger.level, lines.map((line) => line.msg)]).toEqual(['error', ['shown']]);
});
