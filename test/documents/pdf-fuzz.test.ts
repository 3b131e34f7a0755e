// Mutated PDFs posted to a real server's /v1/documents (fixture models, SQLite): LibreOffice's PDF and a scanned
// page cut short, bytes flipped, and objects of one spliced into the other. Each upload gets an answer under 500
// (accepted, or refused with the surface's error body), each accepted job ends (done or error, with a message),
// and /health answers throughout. The suite posts 100 (about 12 s); DRAGOMAN_TEST_PDF_FUZZ=1000 posts a thousand
// (about three minutes on 2 busy cores).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeNeeding } from '../tools.ts';
import { startTestApp, type TestApp } from '../api/helpers.ts';
import { upload, waitForJob } from './jobs-client.ts';
import { makeReportPdf, makeScannedPdf } from './pdf-fixtures.ts';

const MUTATIONS = Number(process.env.DRAGOMAN_TEST_PDF_FUZZ ?? 100);

/** A small deterministic generator, so a failing case can be run again. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** The "N G obj ... endobj" spans of a file. */
function objects(bytes: Uint8Array): Buffer[] {
  const text = Buffer.from(bytes).toString('latin1');
  return [...text.matchAll(/\d+ \d+ obj[\s\S]*?endobj/g)].map((m) => Buffer.from(m[0], 'latin1'));
}

function mutate(sources: Uint8Array[], random: () => number, i: number): Uint8Array {
  const base = Buffer.from(sources[Math.floor(random() * sources.length)]!);
  switch (i % 3) {
    case 0:
      return base.subarray(0, Math.floor(random() * base.length));
    case 1: {
      const flips = 1 + Math.floor(random() * 16);
      for (let k = 0; k < flips; k++) base[Math.floor(random() * base.length)]! ^= 1 + Math.floor(random() * 255);
      return base;
    }
    default: {
      // An object of another file put where one of this file's objects was (offsets no longer true).
      const donor = objects(sources[Math.floor(random() * sources.length)]!);
      const own = objects(base);
      if (!donor.length || !own.length) return base;
      const victim = own[Math.floor(random() * own.length)]!;
      const at = base.indexOf(victim);
      return Buffer.concat([base.subarray(0, at), donor[Math.floor(random() * donor.length)]!, base.subarray(at + victim.length)]);
    }
  }
}

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
      const up = await upload(t.url, key.secret, `case-${i}.pdf`, mutate(sources, random, i));
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
