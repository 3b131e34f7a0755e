// Documents translated with a translation memory, against a real server (real SQLite, fixture models): exact units
// come back as stored and the rest from the model, the memory's characters counted apart; the tags of an HTML
// sentence placed where the stored TMX codes say; XLIFF 1.2 and 2.0 states with <alt-trans> and <mtc:matches>;
// PO fuzzy flags; learning; another key's memory not found; the field checks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planHtml } from '../../src/text/html/index.ts';
import { markedTarget } from '../../src/memories/inline-codes.ts';
import { similarity } from '../../src/memories/index.ts';
import { call } from '../api/helpers.ts';
import { download, upload, waitForJob } from '../documents/jobs-client.ts';
import { type CompatServer, reference, startCompatServer } from '../google/harness.ts';
import { EXACT, FUZZY_STORED, tmx } from './fixtures.ts';

const NEAR = 'The weather is very nice today and we are going to the beach.';
const MACHINE = 'The dog is in the garden.';
/** A sentence whose bold word moves to the end of its German translation. */
const TAGGED = {
  source: 'Click here to start the program.',
  target: 'Um das Programm zu starten, klicken Sie hier.',
  sourceMarkup: 'Click <bpt i="1">&lt;b&gt;</bpt>here<ept i="1">&lt;/b&gt;</ept> to start the program.',
  targetMarkup: 'Um das Programm zu starten, klicken Sie <bpt i="1">&lt;b&gt;</bpt>hier<ept i="1">&lt;/b&gt;</ept>.',
};
const MEMORY_TMX = tmx([EXACT, FUZZY_STORED, TAGGED]);

let server: CompatServer;
let key: { id: string; secret: string };
let memory: string;

const machine = async (text: string) => (await reference(server.service, text, 'de', 'en'))[0]!;

async function importMemory(secret: string, body = MEMORY_TMX): Promise<string> {
  const r = await fetch(`${server.url}/v1/memories?name=Docs`, { method: 'POST', headers: { 'x-api-key': secret, 'content-type': 'application/x-tmx+xml' }, body });
  expect(r.status).toBe(201);
  return ((await r.json()) as any).data.memory.id;
}

async function usage(secret: string): Promise<{ charactersUsed: number; memoryCharactersServed: number }> {
  return (await call(server.url, 'GET', '/v1/usage', { key: secret })).body.data;
}

/** The document translated with `fields`: its job once done, and its result as text. */
async function translated(name: string, content: string, fields: Record<string, string>, secret = key.secret): Promise<{ job: any; text: string }> {
  const up = await upload(server.url, secret, name, content, { target: 'de', source: 'en', ...fields });
  expect(up.status, JSON.stringify(up.body)).toBe(202);
  const job = await waitForJob(server.url, secret, up.body.data.document.id);
  expect(job.status, JSON.stringify(job.error)).toBe('done');
  const out = await download(server.url, secret, job.id);
  return { job, text: out.bytes.toString('utf8') };
}

beforeAll(async () => {
  server = await startCompatServer();
  key = await server.key({ rpm: null });
  memory = await importMemory(key.secret);
});

afterAll(async () => {
  await server?.close();
});

describe('inline codes of a stored segment placed in an HTML sentence', () => {
  it("puts the sentence's tags where the TMX codes of the target are, not where the positional placement would", () => {
    const plan = planHtml('<p>Click <b>here</b> to start the program.</p>');
    expect(plan.segments).toEqual([TAGGED.source]);
    expect(plan.assemble([markedTarget(TAGGED)])).toBe('<p>Um das Programm zu starten, klicken Sie <b>hier</b>.</p>');
    // Without the codes, the tag is placed by position: elsewhere (what the markers change).
    expect(plan.assemble([TAGGED.target])).not.toBe('<p>Um das Programm zu starten, klicken Sie <b>hier</b>.</p>');
  });

  it('on /v1/translate with format=html too', async () => {
    const r = await call(server.url, 'POST', '/v1/translate', { key: key.secret, body: { q: '<p>Click <b>here</b> to start the program.</p>', source: 'en', target: 'de', format: 'html', memory } });
    expect(r.body.data.translations[0]).toMatchObject({ translatedText: '<p>Um das Programm zu starten, klicken Sie <b>hier</b>.</p>', memory: { exact: 1 } });
  });

  it("drops codes that are not the sentence's own (another word bold) and places the tags by position", () => {
    const plan = planHtml('<p>Click here to <b>start</b> the program.</p>');
    expect(plan.assemble([markedTarget(TAGGED)])).toBe(plan.assemble([TAGGED.target]));
    // A segment with no markup is its stored text.
    expect(markedTarget({ target: EXACT.target })).toBe(EXACT.target);
  });
});

describe('/v1/documents with a memory', () => {
  it('exact paragraphs come back as stored, the others from the model; memory characters are counted apart', async () => {
    const k = await server.key({ rpm: null });
    const m = await importMemory(k.secret);
    const text = `${EXACT.source}\n\n${MACHINE}\n\n  The   house  is small.\n`;
    const before = await usage(k.secret);
    const { job, text: out } = await translated('notes.txt', text, { memory: m, memoryThreshold: '80' }, k.secret);
    expect(job).toMatchObject({ memory: m, memoryThreshold: 80 });
    const list = await call(server.url, 'GET', '/v1/documents', { key: k.secret });
    expect(list.body.data.documents[0]).toMatchObject({ id: job.id, memory: m, memoryThreshold: 80 });
    expect(out).toBe(`${EXACT.target}\n\n${await machine(MACHINE)}\n\n  ${EXACT.target}\n`);
    const after = await usage(k.secret);
    expect(after.memoryCharactersServed - before.memoryCharactersServed).toBe(2 * EXACT.source.length);
    // Charged as DeepL charges: every character of the document, the memory's included.
    expect(after.charactersUsed - before.charactersUsed).toBe(job.characters);
    expect(job.characters).toBe(2 * EXACT.source.length + MACHINE.length);
  });

  it("an HTML sentence from the memory keeps its bold on the word the TMX codes name", async () => {
    const html = `<!doctype html><html><body><p>Click <b>here</b> to start the program.</p><p>${MACHINE}</p></body></html>`;
    const { text } = await translated('page.html', html, { memory });
    expect(text).toContain('<p>Um das Programm zu starten, klicken Sie <b>hier</b>.</p>');
    expect(text).toContain(`<p>${await machine(MACHINE)}</p>`);
  });

  it('XLIFF 1.2: memory units final (exact-match), machine ones needs-review-translation, fuzzy matches as <alt-trans>', async () => {
    const sim = similarity(NEAR, FUZZY_STORED.source);
    expect(sim).toBe(92);
    const xlf = `<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
  <file original="app" source-language="en" datatype="plaintext">
    <body>
      <trans-unit id="1">
        <source>${EXACT.source}</source>
      </trans-unit>
      <trans-unit id="2">
        <source>${NEAR}</source>
        <target state="new"></target>
      </trans-unit>
      <trans-unit id="3">
        <source>${MACHINE}</source>
      </trans-unit>
      <trans-unit id="4">
        <source>Click <g id="b1">here</g> to start the program.</source>
      </trans-unit>
    </body>
  </file>
</xliff>
`;
    const { text } = await translated('app.xlf', xlf, { memory, memoryThreshold: String(sim) });
    expect(text).toContain(`<source>${EXACT.source}</source>\n        <target state="final" state-qualifier="exact-match">${EXACT.target}</target>\n      </trans-unit>`);
    expect(text).toContain(
      `<target state="needs-review-translation" state-qualifier="leveraged-mt">${await machine(NEAR)}</target>\n` +
      `        <alt-trans match-quality="92" origin="dragoman-memory"><source>${FUZZY_STORED.source}</source><target xml:lang="de">${FUZZY_STORED.target}</target></alt-trans>\n      </trans-unit>`,
    );
    expect(text).toContain(`<target state="needs-review-translation" state-qualifier="leveraged-mt">${await machine(MACHINE)}</target>\n      </trans-unit>`);
    expect(text.match(/<alt-trans/g)).toHaveLength(1);
    // The unit's <g> goes where the stored TMX codes put the bold word.
    expect(text).toContain('<target state="final" state-qualifier="exact-match">Um das Programm zu starten, klicken Sie <g id="b1">hier</g>.</target>');
    // Above the pair's similarity, no match is reported.
    const above = await translated('app.xlf', xlf, { memory, memoryThreshold: String(sim + 1) });
    expect(above.text).not.toContain('<alt-trans');
    expect(above.text).toContain('state="final"');
  });

  it('XLIFF 2.0: segments final or translated with a subState, fuzzy matches as <mtc:matches> first in the unit', async () => {
    const xlf = `<?xml version="1.0" encoding="UTF-8"?>
<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en">
  <file id="f1">
    <unit id="u1">
      <segment id="s1"><source>${EXACT.source}</source></segment>
      <segment><source>${NEAR}</source></segment>
    </unit>
    <unit id="u2">
      <segment id="s3" state="initial" subState="acme:draft"><source>${MACHINE}</source><target></target></segment>
    </unit>
  </file>
</xliff>
`;
    const { text } = await translated('app.xlf', xlf, { memory, memoryThreshold: '90' });
    expect(text).toContain(
      '<unit id="u1"><mtc:matches xmlns:mtc="urn:oasis:names:tc:xliff:matches:2.0">' +
      `<mtc:match ref="#dragoman-s1" similarity="92" type="tm" origin="dragoman-memory"><source>${FUZZY_STORED.source}</source>` +
      `<target xml:lang="de">${FUZZY_STORED.target}</target></mtc:match></mtc:matches>\n      <segment id="s1" state="final"><source>`,
    );
    expect(text).toContain(`<segment id="s1" state="final"><source>${EXACT.source}</source><target>${EXACT.target}</target></segment>`);
    expect(text).toContain(`<segment id="dragoman-s1" state="translated" subState="dragoman:needs-review-translation"><source>${NEAR}</source><target>${await machine(NEAR)}</target></segment>`);
    expect(text).toContain(`<segment id="s3" state="translated" subState="dragoman:needs-review-translation"><source>${MACHINE}</source><target>${await machine(MACHINE)}</target></segment>`);
    expect(text).toContain('<unit id="u2">\n');
  });

  it('PO: memory entries lose their fuzzy flag, machine-translated ones get #, fuzzy', async () => {
    const po = `msgid ""
msgstr ""
"Language: \\n"

#: src/a.c:1
#, fuzzy, c-format
msgid "${EXACT.source}"
msgstr "Alt"

#: src/b.c:2
msgid "${MACHINE}"
msgstr ""

#, c-format
msgid "${NEAR}"
msgstr ""
`;
    const { text } = await translated('app.po', po, { memory });
    expect(text).toContain(`#: src/a.c:1\n#, c-format\nmsgid "${EXACT.source}"\nmsgstr "${EXACT.target}"\n`);
    expect(text).toContain(`#: src/b.c:2\n#, fuzzy\nmsgid "${MACHINE}"\nmsgstr "${await machine(MACHINE)}"\n`);
    expect(text).toContain(`#, fuzzy, c-format\nmsgid "${NEAR}"\n`);
  });

  it('without a memory, XLIFF and PO are written as before: no state, no fuzzy flag added', async () => {
    const xlf = `<xliff version="1.2"><file source-language="en"><body><trans-unit id="1"><source>${MACHINE}</source></trans-unit></body></file></xliff>`;
    expect((await translated('a.xlf', xlf, {})).text).toBe(`<xliff version="1.2"><file source-language="en" target-language="de"><body><trans-unit id="1"><source>${MACHINE}</source><target>${await machine(MACHINE)}</target></trans-unit></body></file></xliff>`);
    expect((await translated('a.po', `msgid "${MACHINE}"\nmsgstr ""\n`, {})).text).toBe(`msgid "${MACHINE}"\nmsgstr "${await machine(MACHINE)}"\n`);
  });

  it('memoryUpdate: the machine translations of the document are learned as unreviewed segments', async () => {
    const k = await server.key({ rpm: null });
    const m = await importMemory(k.secret);
    const fresh = 'A man is riding a bicycle.';
    await translated('learn.txt', `${fresh}\n\n${EXACT.source}\n`, { memory: m, memoryUpdate: 'true' }, k.secret);
    const list = await call(server.url, 'GET', `/v1/memories/${m}/segments?status=unreviewed`, { key: k.secret });
    expect(list.body.data.segments.map((s: any) => [s.source, s.target])).toEqual([[fresh, await machine(fresh)]]);
  });

  it("another key's memory is not found (404), nothing charged; a memory of another source language is a 400", async () => {
    const other = await server.key({ rpm: null });
    const before = await usage(other.secret);
    const up = await upload(server.url, other.secret, 'notes.txt', `${EXACT.source}\n`, { target: 'de', source: 'en', memory });
    expect(up.status).toBe(404);
    expect(up.body.error).toEqual({ code: 404, type: 'invalid_request', message: `Translation memory '${memory}' not found.` });
    expect((await usage(other.secret)).charactersUsed).toBe(before.charactersUsed);
    const german = await upload(server.url, key.secret, 'notiz.txt', 'Das Haus ist klein.\n', { target: 'en', source: 'de', memory });
    expect(german.status).toBe(400);
    expect(german.body.error.message).toBe(`Translation memory '${memory}' has source language 'en'; the document's is 'de'.`);
  });

  it('a memory deleted while its job runs: the job fails with its 404 message and is refunded', async () => {
    const k = await server.key({ rpm: null });
    const m = await importMemory(k.secret);
    const big = Array.from({ length: 400 }, (_x, i) => `The garden number ${i} is big and the house is small.`).join('\n\n');
    const up = await upload(server.url, k.secret, 'big.txt', big, { target: 'de', source: 'en', memory: m });
    expect(up.status).toBe(202);
    expect((await call(server.url, 'DELETE', `/v1/memories/${m}`, { key: k.secret })).status).toBe(204);
    const job = await waitForJob(server.url, k.secret, up.body.data.document.id);
    expect(job.status).toBe('error');
    expect(job.error.message).toBe(`Translation memory '${m}' not found.`);
    expect(await usage(k.secret)).toMatchObject({ charactersUsed: 0, memoryCharactersServed: 0 });
  });

  it('refuses a bad threshold and memory fields without a memory, with the /v1 error body', async () => {
    for (const [fields, message] of [
      [{ memory, memoryThreshold: '101' }, "Field 'memoryThreshold' must be a whole number from 0 to 100."],
      [{ memory, memoryThreshold: 'high' }, "Field 'memoryThreshold' must be a whole number from 0 to 100."],
      [{ memory, memoryUpdate: 'yes' }, "Field 'memoryUpdate' must be true or false."],
      [{ memoryThreshold: '80' }, "'memoryThreshold' and 'memoryUpdate' need 'memory': the id of one of the key's translation memories."],
    ] as const) {
      const up = await upload(server.url, key.secret, 'notes.txt', `${EXACT.source}\n`, { target: 'de', source: 'en', ...fields });
      expect(up.status, message).toBe(400);
      expect(up.body.error).toEqual({ code: 400, type: 'invalid_request', message });
    }
  });
});
