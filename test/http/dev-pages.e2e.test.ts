import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canRun, commandMissing } from '../support/availability.ts';
import { createApiKey, type ServerProcess, startServerProcess } from '../support/server-process.ts';
import { makeTempDir } from '../support/temp-dir.ts';

/**
 * The developer pages in a real headless browser (Debian's chromium) with the network cut off:
 * every request that is not to the server's own origin is aborted and recorded, and none may be
 * made. A developer opens each page, enters a key, sends a query or a request, and sees the answer.
 */

const CHROMIUM = '/usr/bin/chromium';
const available = canRun('Developer pages in a browser', commandMissing(CHROMIUM, ['--version'], 'chromium'));

let temp: ReturnType<typeof makeTempDir>;
let profile: string;
let server: ServerProcess;
let key: string;
let browser: BrowserContext;
const elsewhere: string[] = [];

beforeAll(async () => {
  if (!available) return;
  temp = makeTempDir('petstore-dev-pages-');
  const env = { PETSTORE_DATA_DIR: temp.dir };
  key = createApiKey(env, ['--plan', 'pro']);
  server = await startServerProcess({ ...env, NODE_ENV: 'development' });
  const created = await fetch(`${server.url}/v1/pets`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Biscuit the browser-tested cat', categoryId: 2 }),
  });
  expect(created.status).toBe(201);
  profile = mkdtempSync(path.join(tmpdir(), 'petstore-chromium-'));
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const origin = new URL(server.url).origin;
  await browser.route('**/*', (route) => {
    const url = route.request().url();
    if (new URL(url).origin === origin) return route.continue();
    elsewhere.push(url);
    return route.abort('internetdisconnected');
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.kill();
  temp?.remove();
  if (profile !== undefined) rmSync(profile, { recursive: true, force: true });
});

async function open(path: string): Promise<Page> {
  const page = await browser.newPage();
  const response = await page.goto(`${server.url}${path}`);
  expect(response?.status()).toBe(200);
  return page;
}

describe.skipIf(!available)('developer pages, offline', () => {
  it('GraphiQL: enter a key in the Headers tab, run the query, see the pets', async () => {
    const page = await open('/graphiql');
    const run = page.getByRole('button', { name: 'Execute query (Ctrl-Enter)' });
    await run.waitFor();
    // Replace the placeholder as a developer would: double-click the word, type the key. The
    // editor colours its text a moment after showing it, so wait for the string's own token.
    const placeholder = page.getByText('"Bearer YOUR_API_KEY"', { exact: true });
    await placeholder.waitFor();
    const box = (await placeholder.boundingBox())!;
    await page.mouse.dblclick(box.x + box.width * 0.8, box.y + box.height / 2);
    await page.keyboard.type(key);
    const answered = page.waitForResponse((response) => response.url().endsWith('/graphql'));
    await run.click();
    expect((await answered).status()).toBe(200);
    await page.getByText('"Biscuit the browser-tested cat"').waitFor();
    await page.close();
  });

  it('API reference: authorize with a key, try GET /pets, see the pets', async () => {
    const page = await open('/docs');
    await page.getByRole('button', { name: 'Authorize' }).first().click();
    const dialog = page.locator('.modal-ux');
    await dialog.locator('input').fill(key);
    await dialog.getByRole('button', { name: 'Apply credentials' }).click();
    await dialog.getByRole('button', { name: 'Close', exact: true }).click();
    const operation = page.locator('.opblock-get', { hasText: '/pets' }).first();
    await operation.locator('.opblock-summary').click();
    const answered = page.waitForResponse((response) => new URL(response.url()).pathname === '/v1/pets');
    await operation.getByRole('button', { name: 'Execute' }).click();
    const response = await answered;
    expect(response.status()).toBe(200);
    expect(response.request().headers().authorization).toBe(`Bearer ${key}`);
    await operation.locator('.live-responses-table').getByText('Biscuit the browser-tested cat').waitFor();
    await page.close();
  });

  it('made no request anywhere but the server itself', () => {
    expect(elsewhere).toEqual([]);
  });
});
