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
});
