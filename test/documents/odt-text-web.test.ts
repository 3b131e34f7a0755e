// An ODT saved by LibreOffice Writer/Web carries the media type application/vnd.oasis.opendocument.text-web; its
// body is an ordinary office:text. POST /v1/documents takes it as ODT and gives it back translated, as text-web.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../api/helpers.ts';
import { download, upload, waitForJob } from './jobs-client.ts';
import { zipOf } from './zip-fixtures.ts';
import { unzip } from './zip-helpers.ts';

const CONTENT = `<?xml version="1.0" encoding="UTF-8"?>
<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.3">
  <office:body><office:text>
    <text:h text:outline-level="1">The house is small.</text:h>
    <text:p>The cat sleeps on the mat.</text:p>
  </office:text></office:body>
</office:document-content>`;
const MANIFEST = `<?xml version="1.0" encoding="UTF-8"?>
<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3">
  <manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text-web"/>
  <manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>
</manifest:manifest>`;

let t: TestApp;
let key: string;

beforeAll(async () => {
  t = await startTestApp();
  key = (await t.key()).secret;
});
afterAll(async () => t?.close());

describe('ODT from Writer/Web (text-web)', () => {
  it('is accepted as ODT and translated; its media type stays text-web', async () => {
    const file = await zipOf([['mimetype', 'application/vnd.oasis.opendocument.text-web'], ['content.xml', CONTENT], ['META-INF/manifest.xml', MANIFEST]]);
    const accepted = await upload(t.url, key, 'page.odt', file, { source: 'en', target: 'de' });
    expect(accepted.status).toBe(202);
    expect(accepted.body.data.document.format).toBe('odt');
    const id = accepted.body.data.document.id as string;
    expect((await waitForJob(t.url, key, id)).status).toBe('done');
    const result = await download(t.url, key, id);
    expect(result.status).toBe(200);
    const entries = new Map((await unzip(result.bytes)).map((e) => [e.name, e]));
    expect(Buffer.from(entries.get('mimetype')!.data).toString()).toBe('application/vnd.oasis.opendocument.text-web');
    const content = Buffer.from(entries.get('content.xml')!.data).toString();
    expect(content).not.toContain('The cat sleeps on the mat.');
    expect(content).toMatch(/<text:p>[^<]+<\/text:p>/);
  });
});
