import { GenericContainer, Wait, getContainerRuntimeClient } from 'testcontainers';

export type KurrentDbServer =
  | { kind: 'given' | 'testcontainers'; connectionString: string; stop: () => Promise<void> }
  | { kind: 'unavailable'; reason: string };

const IMAGE = 'docker.kurrent.io/kurrent-latest/kurrentdb:25.1';

/** The KurrentDB to test against: the one at `url` when given, else a container, else none. */
export async function startKurrentDb(url: string | undefined): Promise<KurrentDbServer> {
  if (url) return { kind: 'given', connectionString: url, stop: async () => {} };
  const docker = await dockerAvailable();
  if (docker !== true)
    return { kind: 'unavailable', reason: `no EVENT_STORE_URL and no Docker engine (${docker})` };
  const container = await new GenericContainer(IMAGE)
    .withEnvironment({
      KURRENTDB_INSECURE: 'true',
      KURRENTDB_MEM_DB: 'true',
      KURRENTDB_RUN_PROJECTIONS: 'None',
    })
    .withExposedPorts(2113)
    .withWaitStrategy(Wait.forHttp('/health/live', 2113).forStatusCode(204))
    .withStartupTimeout(120_000)
    .start();
  return {
    kind: 'testcontainers',
    connectionString: `kurrentdb://${container.getHost()}:${container.getMappedPort(2113)}?tls=false`,
    stop: async () => {
      await container.stop();
    },
  };
}

/** true, or why testcontainers cannot reach a container runtime. */
async function dockerAvailable(): Promise<true | string> {
  try {
    await Promise.race([
      getContainerRuntimeClient(),
      new Promise((_, reject) => setTimeout(() => reject(new Error('timed out after 10 s')), 10_000).unref()),
    ]);
    return true;
  } catch (error) {
    return error instanceof Error ? error.message.split('\n')[0]! : String(error);
  }
}
