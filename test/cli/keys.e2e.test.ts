import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { petstoreKeys } from '../support/cli.ts';
import { openDataDirStore } from '../support/seed-store.ts';
import { type ServerProcess, startServerProcess } from '../support/server-process.ts';
import { makeTempDir } from '../support/temp-dir.ts';

/** The keys CLI as a separate process, writing to the store a running server reads. */

let temp: ReturnType<typeof makeTempDir>;
let server: ServerProcess;

beforeAll(async () => {
  temp = makeTempDir();
  server = await startServerProcess({ PETSTORE_DATA_DIR: temp.dir, RATE_LIMIT_BAN_SECONDS: '120' });
});
afterAll(async () => {
  await server?.kill();
  temp?.remove();
});

const keys = (...args: string[]) => petstoreKeys(temp.dir, ...args);

async function get(secret: string): Promise<Response> {
  const response = await fetch(`${server.url}/v1/pets`, { headers: { authorization: `Bearer ${secret}` } });
  await response.arrayBuffer();
  return response;
}

/** The `code` of the server's Error body for a request with this key; undefined on a success. */
async function errorCode(secret: string): Promise<string | undefined> {
  const response = await fetch(`${server.url}/v1/pets`, { headers: { authorization: `Bearer ${secret}` } });
  const body = (await response.json()) as { code?: string };
  return response.ok ? undefined : body.code;
}

/** Polls until `check` holds, for at most `ms`; resolves whether it held. */
async function within(ms: number, check: () => Promise<boolean>): Promise<boolean> {
  const deadline = Date.now() + ms;
  do {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  } while (Date.now() < deadline);
  return false;
}

async function latestKeyId(): Promise<string> {
  const listed = JSON.parse((await keys('list', '--json')).stdout) as { keyId: string }[];
  return listed.at(-1)!.keyId;
}

it('prints the new key alone on stdout', async () => {
  const { stdout } = await keys('create', '--plan', 'free', '--name', 'scripts');
  expect(stdout).toMatch(/^psk_[A-Za-z0-9_-]{43}\n$/);
});

it('makes a new key usable on a running server within a second', async () => {
  const secret = (await keys('create', '--plan', 'free')).stdout.trim();
  expect(await within(1000, async () => (await get(secret)).status === 200)).toBe(true);
});

it('makes a revoked key unusable on a running server within a second', async () => {
  const secret = (await keys('create', '--plan', 'free')).stdout.trim();
  const keyId = await latestKeyId();
  expect(await within(1000, async () => (await get(secret)).status === 200)).toBe(true);
  await keys('revoke', keyId);
  expect(await within(1000, async () => (await get(secret)).status === 401)).toBe(true);
});

it('applies a plan change on a running server within a second', async () => {
  const secret = (await keys('create', '--plan', 'free')).stdout.trim();
  const keyId = await latestKeyId();
  await keys('plan', keyId, 'pro');
  expect(await within(1000, async () => (await get(secret)).headers.get('x-ratelimit-limit') === '300')).toBe(
    true,
  );
});

it('lists keys with their plan, scopes and status, never their secret or its hash', async () => {
  const secret = (await keys('create', '--plan', 'business', '--name', 'listed')).stdout.trim();
  const { stdout } = await keys('list');
  const line = stdout.split('\n').find((row) => row.includes('listed'))!;
  expect(line.split(/\s{2,}/)).toEqual([
    expect.stringMatching(/^key_[0-9a-f]{16}$/),
    'listed',
    'business',
    '1000',
    '100000',
    'pets:read,pets:write,orders:read,orders:write',
    expect.any(String),
    'active',
  ]);
  expect(stdout).not.toContain(secret.slice(4));
  expect((await keys('list', '--json')).stdout).not.toContain('secretHash');
});

it('lists a key revoked before keys had scopes without scopes, not as one a start will give them', async () => {
  const store = openDataDirStore(temp.dir);
  const metadata = () => ({
    eventId: randomUUID(),
    occurredAt: new Date().toISOString(),
    correlationId: 'c',
    schemaVersion: 1,
  });
  const keyId = 'key_00000000000000aa';
  const limits = { perMinute: 60, perDay: 1000 };
  const issued = {
    keyId,
    name: 'early',
    plan: 'free',
    limits,
    secretHash: 'x',
    issuedAt: '2026-11-22T06:00:00.000Z',
  };
  await store.appendToStream(`apikey-${keyId}`, [
    { type: 'ApiKeyIssued', data: issued, metadata: metadata() },
    { type: 'ApiKeyRevoked', data: { keyId, revokedAt: '2026-11-22T07:00:00.000Z' }, metadata: metadata() },
  ]);
  await store.close();
  const line = (await keys('list')).stdout.split('\n').find((row) => row.includes(keyId))!;
  expect(line.split(/\s{2,}/).slice(5)).toEqual(['-', '2026-11-22T06:00:00.000Z', 'revoked']);
});

it('issues a key with the scopes and expiry asked for, which the server then honours', async () => {
  const secret = (
    await keys('create', '--plan', 'free', '--name', 'reader', '--scopes', 'pets:read', '--expires-in', '30d')
  ).stdout.trim();
  const keyId = await latestKeyId();
  const [listed] = (
    JSON.parse((await keys('list', '--json')).stdout) as {
      keyId: string;
      scopes: string[];
      expiresAt: string;
    }[]
  ).filter((key) => key.keyId === keyId);
  expect(listed!.scopes).toEqual(['pets:read']);
  expect(Date.parse(listed!.expiresAt) - Date.now()).toBeGreaterThan(29 * 86_400_000);
  expect(await within(1000, async () => (await get(secret)).status === 200)).toBe(true);
  const write = await fetch(`${server.url}/v1/pets`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Rex', categoryId: 1 }),
  });
  expect(write.status).toBe(403);
});

it('rotates a key: the new secret alone on stdout, and both secrets work during the grace', async () => {
  const old = (await keys('create', '--plan', 'free', '--name', 'rotating')).stdout.trim();
  const keyId = await latestKeyId();
  const rotation = await keys('rotate', keyId, '--grace', '1h');
  const fresh = rotation.stdout.trim();
  expect(fresh).toMatch(/^psk_[A-Za-z0-9_-]{43}$/);
  expect(rotation.stderr).toContain(`Rotated key ${keyId} "rotating"`);
  expect(await within(1000, async () => (await get(fresh)).status === 200)).toBe(true);
  expect((await get(old)).status).toBe(200);
});

it('rotating again during a grace says the secret before the last one stops now, and it does', async () => {
  const first = (await keys('create', '--plan', 'free', '--name', 'rotating twice')).stdout.trim();
  const keyId = await latestKeyId();
  const firstRotation = await keys('rotate', keyId, '--grace', '30d');
  const graceEnd = /The old key works until (\S+)\./.exec(firstRotation.stderr)![1];
  const second = await keys('rotate', keyId, '--grace', '1h');
  expect(second.stderr).toContain(
    `The key an earlier rotation replaced, due to work until ${graceEnd}, stopped working now: only the last old key keeps a grace.`,
  );
  expect(await within(1000, async () => (await get(first)).status === 401)).toBe(true);
  expect((await get(firstRotation.stdout.trim())).status).toBe(200);
});

it('refuses an unknown scope with one line and exit code 2', async () => {
  const failure = await keys('create', '--plan', 'free', '--scopes', 'pets:read,pets:eat').catch(
    (error: { code: number; stderr: string }) => error,
  );
  expect(failure).toMatchObject({ code: 2 });
  // Refused before the store is opened, so without the line naming it.
  expect((failure as { stderr: string }).stderr).toBe(
    'petstore keys create: Unknown scope "pets:eat"; the scopes are pets:read, pets:write, orders:read, orders:write, audit:read, admin.\n',
  );
});

it('shows a ban in keys list, and lifts it with keys unban', async () => {
  const secret = (await keys('create', '--plan', 'free', '--name', 'greedy')).stdout.trim();
  const keyId = await latestKeyId();
  expect(await within(1000, async () => (await get(secret)).status === 200)).toBe(true);
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 50_000) await new Promise((resolve) => setTimeout(resolve, 60_500 - intoMinute));
  const statuses = [];
  for (let i = 0; i < 75; i++) statuses.push((await get(secret)).status);
  expect(statuses.at(-1)).toBe(429);
  const listed = (await keys('list')).stdout.split('\n').find((row) => row.includes(keyId))!;
  expect(listed).toMatch(/banned until \d{4}-\d\d-\d\dT/);
  await keys('unban', keyId);
  const after = (await keys('list')).stdout.split('\n').find((row) => row.includes(keyId))!;
  expect(after.endsWith('active')).toBe(true);
  // The server lifts the ban within a second; the key is still past this minute's 60, so it is
  // rate_limited, not banned, and a plan with room serves it at once.
  expect(await within(1000, async () => (await errorCode(secret)) === 'rate_limited')).toBe(true);
  await keys('plan', keyId, 'pro');
  expect(await within(1000, async () => (await get(secret)).status === 200)).toBe(true);
});

it('refuses an unknown plan with exit code 2 and a message', async () => {
  const failure = await keys('create', '--plan', 'gold').catch(
    (error: { code: number; stderr: string }) => error,
  );
  expect(failure).toMatchObject({ code: 2 });
  expect(failure.stderr).toBe('petstore keys create: plan must be one of free, pro, business, enterprise.\n');
});

it('refuses an --expires-in too long for a date, saying so rather than that it is not in the future', async () => {
  const failure = await keys('create', '--plan', 'free', '--expires-in', '99999999d').catch(
    (error: { code: number; stderr: string }) => error,
  );
  expect(failure).toMatchObject({ code: 2 });
  expect(failure.stderr.split('\n')[0]).toBe(
    'petstore keys create: --expires-in 99999999d ends past the last time a date can hold (year 275760)',
  );
});

it('refuses an --expires-at on a day its month does not have, instead of moving it into the next month', async () => {
  const failures = await Promise.all(
    ['2027-02-30T00:00:00Z', '2027-04-31T00:00:00Z'].map((date) =>
      keys('create', '--plan', 'free', '--expires-at', date).then(
        () => ({ code: 0, stderr: '' }),
        (error: { code: number; stderr: string }) => error,
      ),
    ),
  );
  expect(failures.map((failure) => [failure.code, failure.stderr.split('\n')[0]])).toEqual(
    Array(2).fill([
      2,
      'petstore keys create: --expires-at must be an RFC 3339 time, such as 2027-01-31T00:00:00Z',
    ]),
  );
});

it('names the missing limit of an enterprise key by its flag, --per-minute', async () => {
  const failure = await keys('create', '--plan', 'enterprise', '--per-day', '9').catch(
    (error: { code: number; stderr: string }) => error,
  );
  expect(failure).toMatchObject({ code: 2 });
  expect(failure.stderr).toBe('petstore keys create: The enterprise plan needs --per-minute.\n');
});

it('refuses custom limits on a plan other than enterprise', async () => {
  const failure = await keys('create', '--plan', 'free', '--per-minute', '5', '--per-day', '9').catch(
    (error: { code: number; stderr: string }) => error,
  );
  expect(failure).toMatchObject({ code: 2 });
  expect(failure.stderr).toBe(
    'petstore keys create: Custom limits apply to the enterprise plan only, not free.\n',
  );
});

it('refuses an empty key id as a mistake in the command line, exit code 2, before opening the store', async () => {
  const failure = await keys('revoke', '').catch((error: { code: number; stderr: string }) => error);
  expect(failure).toMatchObject({
    code: 2,
    stderr:
      'petstore keys revoke: the key id is empty: give one (petstore keys list shows them)\n\n' +
      'Usage: petstore keys revoke <key-id>\n',
  });
});
