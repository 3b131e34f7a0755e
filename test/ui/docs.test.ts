// /docs (Swagger UI) in Debian's Chromium, reached under a host name that is not loopback, over plain HTTP: as an
// operator opens it on a LAN address. Its Content-Security-Policy must not upgrade the page's own http:// assets
// to https:// (nothing would load and no operation would render), and must allow everything the page does.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, openPage, startUiServer, type UiServer } from './harness.ts';
import { everyTestNeeds } from '../tools.ts';

const HOST = 'dragoman.test';

let server: UiServer;
let browser: Browser;

// Without Chromium every test here is skipped, and counted in the run's summary (test/tools.ts).
const noChromium = everyTestNeeds('chromium');

beforeAll(async () => {
  if (noChromium) return;
  server = await startUiServer();
  browser = await launchChromium([
    `--host-resolver-rules=MAP ${HOST} 127.0.0.1`,
    // The browser's own https-first navigation is not what is tested here: the page's policy is.
    '--disable-features=HttpsUpgrades,HttpsFirstBalancedModeAutoEnable',
  ]);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('/docs over http from a non-loopback host name', () => {
  it('renders the /v1 operations with no console error and no CSP violation', async () => {
    const port = new URL(server.url).port;
    const base = `http://${HOST}:${port}`;
    const { page, requests, consoleErrors, context } = await openPage(browser, `${base}/docs/`);
    try {
      const res = await page.goto(`${base}/docs/`);
      expect(res?.status()).toBe(200);
      const csp = res!.headers()['content-security-policy'] ?? '';
      expect(csp).not.toContain('upgrade-insecure-requests');
      await page.locator('.opblock').first().waitFor({ timeout: 30_000 });
      const operations = await page.locator('.opblock-summary-path').allTextContents();
      expect(operations).toEqual(expect.arrayContaining(['/v1/translate', '/v1/detect', '/v1/languages', '/v1/usage']));
      // Let the page settle (images, late renders) before reading the console.
      await page.waitForLoadState('networkidle');
      expect(consoleErrors).toEqual([]);
      expect(requests.filter((u) => !u.startsWith(`${base}/`) && !u.startsWith('data:'))).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('keeps upgrade-insecure-requests for a request that came over https (behind a TLS proxy)', async () => {
    // The proxy states the scheme; the default trusts no proxy, so this server is started trusting loopback.
    const proxied = await startUiServer({ DRAGOMAN_TRUST_PROXY: 'loopback' });
    try {
      const https = await fetch(`${proxied.url}/docs/`, { headers: { 'x-forwarded-proto': 'https' } });
      expect(https.headers.get('content-security-policy')).toContain('upgrade-insecure-requests');
      const http = await fetch(`${proxied.url}/docs/`);
      expect(http.headers.get('content-security-policy')).not.toContain('upgrade-insecure-requests');
    } finally {
      await proxied.close();
    }
  });
});
