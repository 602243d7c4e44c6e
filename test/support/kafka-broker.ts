import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { homedir } from 'node:os';
import path from 'node:path';
import { makeTempDir } from './temp-dir.ts';
import { freePort } from './free-port.ts';

/**
 * A real single-node Apache Kafka in KRaft mode for the tests: by default a local JVM process
 * from the jars `.ci/install-services.sh` caches (loopback, random free ports, its own temp log
 * dir); with KAFKA_TESTCONTAINERS=true, a container instead (needs a Docker engine).
 * `stop()` then `start()` keeps the ports and the data: a broker outage, not a new broker.
 * `pause()` then `resume()` freezes the broker process (SIGSTOP, SIGCONT): connections stay open
 * and requests hang, as in a long GC pause or a stalled leader, and its clock runs on, so
 * transactions it holds open time out.
 */
export type KafkaBroker = {
  readonly brokers: string[];
  start(): Promise<void>;
  stop(): Promise<void>;
  pause(): Promise<void>;
  resume(): Promise<void>;
  /** Stops the broker and deletes its data. */
  destroy(): Promise<void>;
};

export const KAFKA_VERSION = '3.9.1';
const START_TIMEOUT_MS = 60_000;

export function kafkaLibsDir(): string {
  return (
    process.env.KAFKA_LIBS_DIR ?? path.join(homedir(), '.cache', 'petstore', `kafka-${KAFKA_VERSION}`, 'libs')
  );
}

/** Why a local broker cannot start here, or undefined when it can. */
export function localKafkaUnavailable(): string | undefined {
  const libs = kafkaLibsDir();
  if (!existsSync(libs) || !readdirSync(libs).some((f) => f.startsWith('kafka_2.13-'))) {
    return `no Kafka jars in ${libs}: run bash .ci/install-services.sh`;
  }
  if (spawnSync('java', ['-version']).status !== 0) return 'java is not on the PATH';
  return undefined;
}

export async function startKafkaBroker(): Promise<KafkaBroker> {
  if (process.env.KAFKA_TESTCONTAINERS === 'true') return startKafkaContainer();
  return startLocalKafka();
}

async function startLocalKafka(): Promise<KafkaBroker> {
  const temp = makeTempDir('petstore-kafka-');
  const [brokerPort, controllerPort] = [await freePort(), await freePort()];
  const properties = path.join(temp.dir, 'server.properties');
  writeFileSync(properties, serverProperties(brokerPort, controllerPort, path.join(temp.dir, 'data')));
  writeFileSync(path.join(temp.dir, 'log4j.properties'), LOG4J);
  const classpath = path.join(kafkaLibsDir(), '*');
  const clusterId = randomBytes(16).toString('base64url');
  const format = spawnSync(
    'java',
    // `--cluster-id=…` in one argument: a base64url id may start with '-', which would read as an option.
    ['-cp', classpath, 'kafka.tools.StorageTool', 'format', `--cluster-id=${clusterId}`, '-c', properties],
    {
      encoding: 'utf8',
      timeout: 30_000,
    },
  );
  if (format.status !== 0)
    throw new Error(`Formatting Kafka storage failed: ${format.stderr}${format.stdout}`);

  let process_: ChildProcess | undefined;
  const broker: KafkaBroker = {
    brokers: [`127.0.0.1:${brokerPort}`],
    async start() {
      const log = createWriteStream(path.join(temp.dir, 'server.out'), { flags: 'a' });
      process_ = spawn(
        'java',
        [
          '-Xms128m',
          '-Xmx512m',
          '-XX:+UseSerialGC',
          '-XX:TieredStopAtLevel=1',
          `-Dlog4j.configuration=file:${path.join(temp.dir, 'log4j.properties')}`,
          `-Dkafka.logs.dir=${temp.dir}`,
          '-cp',
          classpath,
          'kafka.Kafka',
          properties,
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      process_.stdout?.pipe(log);
      process_.stderr?.pipe(log);
      const exited = new Promise<never>((_, reject) =>
        process_?.once('exit', (code) =>
          reject(new Error(`Kafka exited with ${code}; see ${temp.dir}/server.out`)),
        ),
      );
      exited.catch(() => {});
      await Promise.race([waitForPort(brokerPort, START_TIMEOUT_MS), exited]);
    },
    async stop() {
      const running = process_;
      process_ = undefined;
      if (!running || running.exitCode !== null) return;
      const exited = new Promise((resolve) => running.once('exit', resolve));
      running.kill('SIGTERM');
      const timer = setTimeout(() => running.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
    async pause() {
      process_?.kill('SIGSTOP');
    },
    async resume() {
      process_?.kill('SIGCONT');
    },
    async destroy() {
      process_?.kill('SIGCONT');
      await broker.stop();
      temp.remove();
    },
  };
  try {
    await broker.start();
  } catch (error) {
    await broker.destroy();
    throw error;
  }
  return broker;
}

async function startKafkaContainer(): Promise<KafkaBroker> {
  const { KafkaContainer } = await import('@testcontainers/kafka');
  const container = await new KafkaContainer('confluentinc/cp-kafka:7.9.0')
    .withKraft()
    .withEnvironment({ KAFKA_TRANSACTION_ABORT_TIMED_OUT_TRANSACTION_CLEANUP_INTERVAL_MS: '500' })
    .start();
  const brokers = [`${container.getHost()}:${container.getMappedPort(9093)}`];
  const freeze = async () => {
    await container.exec(['bash', '-c', 'kill -STOP 1']);
  };
  const thaw = async () => {
    await container.exec(['bash', '-c', 'kill -CONT 1']);
  };
  return {
    brokers,
    // An outage that keeps the mapped port: the broker process is frozen, then thawed.
    start: thaw,
    stop: freeze,
    pause: freeze,
    resume: thaw,
    destroy: async () => {
      await container.stop();
    },
  };
}

function serverProperties(brokerPort: number, controllerPort: number, dataDir: string): string {
  mkdirSync(dataDir, { recursive: true });
  return `process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:${controllerPort}
listeners=PLAINTEXT://127.0.0.1:${brokerPort},CONTROLLER://127.0.0.1:${controllerPort}
advertised.listeners=PLAINTEXT://127.0.0.1:${brokerPort}
controller.listener.names=CONTROLLER
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
log.dirs=${dataDir}
num.partitions=3
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=1
group.initial.rebalance.delay.ms=0
transaction.abort.timed.out.transaction.cleanup.interval.ms=500
auto.create.topics.enable=false
`;
}

const LOG4J = `log4j.rootLogger=WARN, stdout
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka.server.KafkaServer=INFO
log4j.logger.kafka.server.BrokerServer=INFO
`;

async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`Kafka did not listen on port ${port} within ${timeoutMs} ms`);
}
