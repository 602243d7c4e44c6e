/**
 * The layering of ../shared/STYLE.md, checked by test/architecture.unit.test.ts:
 *
 *   shared ← domain ← projections
 *   shared, domain ← application (which defines the ports in application/ports)
 *   application/ports ← eventstore, read-models, rate-limits (the adapters)
 *   application ← http, forwarding
 *   application/ports ← observability (decorators and hooks, wired in by the composition)
 *   everything ← cli, service.ts, server.ts (composition)
 *
 * An import against the grain, or two top-level folders that import each other, fails the test.
 */
const layer = (from, allowed, comment) => ({
  name: `${from.replace(/[^a-z-]/g, '')}-imports-only-${allowed.length === 0 ? 'itself' : 'below'}`,
  comment,
  severity: 'error',
  from: { path: `^${from}` },
  to: {
    path: '^(src|projections)/',
    pathNot: [`^${from}`, ...allowed.map((path) => `^${path}`)],
  },
});

module.exports = {
  forbidden: [
    layer(
      'src/shared/',
      [],
      'shared code (errors, clock, request context, metadata) depends on nothing of ours',
    ),
    layer('src/domain/', ['src/shared/'], 'the domain is pure: it knows only the shared kernel'),
    layer('projections/', ['src/domain/', 'src/shared/'], 'projections fold domain events, nothing else'),
    layer(
      'src/application/',
      ['src/domain/', 'src/shared/'],
      'the application reaches stores and read models through the ports it defines (application/ports)',
    ),
    layer(
      'src/eventstore/',
      ['src/application/ports/', 'src/shared/', 'src/config.ts'],
      'an event store adapter implements the application port',
    ),
    layer(
      'src/read-models/',
      ['src/application/ports/', 'projections/', 'src/domain/', 'src/shared/'],
      'read models implement the application ports over projections',
    ),
    layer(
      'src/rate-limits/',
      ['src/application/ports/', 'src/domain/', 'src/shared/'],
      'rate-limit counters implement the application port',
    ),
    layer(
      'src/forwarding/',
      ['src/application/ports/', 'src/shared/', 'src/config.ts'],
      'the Kafka forwarder reads the event store through its port',
    ),
    layer(
      'src/http/',
      ['src/application/', 'src/domain/', 'src/shared/', 'src/config.ts'],
      'the HTTP edge translates to the application and back',
    ),
    layer(
      'src/observability/',
      ['src/application/ports/', 'src/shared/', 'src/config.ts'],
      'metrics and tracing observe the service from outside: decorators of its ports, hooks the composition wires in',
    ),
    {
      name: 'no-cycles',
      comment: 'no two modules import each other, directly or around a loop',
      severity: 'error',
      from: { path: '^(src|projections)/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(test|bench|node_modules)/' },
  },
};
