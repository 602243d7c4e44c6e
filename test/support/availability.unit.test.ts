import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest';
import { canRun, commandMissing } from './availability.ts';

let warn: MockInstance<typeof console.warn>;
beforeEach(() => {
  warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
});
afterEach(() => {
  warn.mockRestore();
});

describe('canRun', () => {
  it('runs a suite that misses nothing, silently', () => {
    expect(canRun('Redis rate limits', undefined, { env: {} })).toBe(true);
    expect(warn).not.toHaveBeenCalled();
  });

  it('skips a suite outside CI with one line naming the suite and what is missing', () => {
    expect(canRun('Redis rate limits', 'redis-server is not installed', { env: {} })).toBe(false);
    expect(warn.mock.calls).toEqual([
      ['Redis rate limits: NOT RUN, redis-server is not installed; with CI=true this is an error'],
    ]);
  });

  it('keeps a reason of several lines on one', () => {
    canRun('KurrentDB conformance', 'no Docker engine:\n  connect ENOENT /var/run/docker.sock', {
      env: {},
      dockerOnly: true,
    });
    expect(warn.mock.calls).toEqual([
      ['KurrentDB conformance: NOT RUN, no Docker engine: connect ENOENT /var/run/docker.sock'],
    ]);
  });

  it('refuses to skip under CI=true: what .ci/install-services.sh installs must be there', () => {
    expect(() =>
      canRun('Redis rate limits', 'redis-server is not installed', { env: { CI: 'true' } }),
    ).toThrow(
      'Redis rate limits cannot run, and CI=true does not allow skipping it: redis-server is not installed',
    );
  });

  it('lets a Docker-only run skip under CI=true, saying why', () => {
    expect(
      canRun('KurrentDB conformance', 'no Docker engine', { env: { CI: 'true' }, dockerOnly: true }),
    ).toBe(false);
    expect(warn.mock.calls).toEqual([['KurrentDB conformance: NOT RUN, no Docker engine']]);
  });
});

describe('commandMissing', () => {
  it('finds a command that runs', () => {
    expect(commandMissing(process.execPath, ['--version'])).toBeUndefined();
  });

  it('names what is missing and how to install it', () => {
    expect(commandMissing('no-such-command-petstore', ['--version'], 'Schemathesis')).toBe(
      'Schemathesis is not installed (bash .ci/install-services.sh installs it)',
    );
  });
});
