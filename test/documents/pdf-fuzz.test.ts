// Mutated PDFs posted to a real server's /v1/documents (fixture models, SQLite): LibreOffice's PDF and a scanned
// page cut short, bytes flipped, and objects of one spliced into the other. Each upload gets an answer under 500
// (accepted, or refused with the surface's error body), each accepted job ends (done or error, with a message),
// and /health answers throughout. The suite posts 100 (about 12 s); DRAGOMAN_TEST_PDF_FUZZ=1000 posts a thousand
// (about three minutes on 2 busy cores); `npm run bench:hostile -- --only pdf` posts a thousand and tables the outcome.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeNeeding } from '../tools.ts';
import { startTestApp, type TestApp } from '../api/helpers.ts';
import { upload, waitForJob } from './jobs-client.ts';
import { makeReportPdf, makeScannedPdf } from './pdf-fixtures.ts';
import { mutatePdf, rng } from './pdf-mutations.ts';

const MUTATIONS = Number(process.env.DRAGOMAN_TEST_PDF_FUZZ ?? 100);

describeNeeding('soffice')('mutated PDFs on a real server', () => {
  let t: TestApp;
  let key: { id: string; secret: string };
  let sources: Uint8Array[];

  beforeAll(async () => {
    t = await startTestApp();
    key = await t.key({ rpm: null });
    sources = [new Uint8Array(await makeReportPdf()), await makeScannedPdf()];
  }, 300_000);

  afterAll(async () => {
    await t?.close();
  });

  it(`${MUTATIONS} mutated PDFs: no answer of 500 or more, every job ends, /health answers throughout`, async () => {
    const random = rng(49);
    const tally = { accepted: 0, refused: 0 };
    const jobs: string[] = [];
    for (let i = 0; i < MUTATIONS; i++) {
      const up = await upload(t.url, key.secret, `case-${i}.pdf`, mutatePdf(sources, random, i));
      expect(up.status, `case ${i}: ${JSON.stringify(up.body)}`).toBeLessThan(500);
      if (up.status === 202) {
        tally.accepted++;
        jobs.push(up.body.data.document.id);
      } else {
        tally.refused++;
        expect(up.body.error?.message ?? up.body.message, `case ${i}`).toEqual(expect.any(String));
      }
      if (i % 10 === 0) expect((await fetch(`${t.url}/health`)).status).toBe(200);
    }
    for (const id of jobs) {
      const done = await waitForJob(t.url, key.secret, id, 300_000);
      expect(['done', 'error'], JSON.stringify(done)).toContain(done.status);
    }
    expect((await fetch(`${t.url}/health`)).status).toBe(200);
    // Both outcomes occur: the mutations reach the readers, not only the header check.
    expect(tally.accepted).toBeGreaterThan(0);
    expect(tally.refused).toBeGreaterThan(0);
  }, 600_000);
});
