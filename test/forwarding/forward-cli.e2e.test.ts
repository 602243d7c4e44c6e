import { afterAll, describe, expect, it } from 'vitest';
import { ForwarderProcess } from '../support/kafka-forwarder-process.ts';
import { makeTempDir } from '../support/temp-dir.ts';

const temp = makeTempDir('petstore-forward-cli-');
afterAll(() => temp.remove());

describe('petstore forward', () => {
  it('refuses to start without KAFKA_BROKERS: exit status 2 and a message naming it', async () => {
    const child = new ForwarderProcess({ PETSTORE_DATA_DIR: temp.dir, KAFKA_BROKERS: '' });
    expect(await child.exited).toBe(2);
    expect(child.output.join('')).toBe(
      'petstore forward: KAFKA_BROKERS is required by the Kafka forwarder (host:port, comma-separated).\n',
    );
  });

  it('stops on SIGTERM with status 0 when nobody reads its log any more', async () => {
    // No broker answers there: the forwarder keeps trying, and logs as it does.
    const child = new ForwarderProcess({ PETSTORE_DATA_DIR: temp.dir, KAFKA_BROKERS: '127.0.0.1:1' });
    await child.waitForOutput('forwarder started', 15_000);
    child.stopReadingStdout();
    await child.stop();
    expect(await child.exited).toBe(0);
  }, 30_000);
});
