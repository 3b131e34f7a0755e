// Uploading documents to a test server and waiting for their jobs.
import { expect } from 'vitest';

export async function upload(
  url: string,
  key: string | undefined,
  name: string,
  bytes: Uint8Array | string,
  fields: Record<string, string> = { target: 'de', source: 'en' },
): Promise<{ status: number; body: any; headers: Headers }> {
  const form = new FormData();
  form.set('file', new Blob([typeof bytes === 'string' ? Buffer.from(bytes) : Buffer.from(bytes)]), name);
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  const res = await fetch(`${url}/v1/documents`, { method: 'POST', body: form, headers: key ? { 'x-api-key': key } : {} });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

export async function waitForJob(url: string, key: string, id: string, timeoutMs = 60_000): Promise<any> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await fetch(`${url}/v1/documents/${id}`, { headers: { 'x-api-key': key } });
    const body = (await res.json()) as any;
    expect(res.status).toBe(200);
    const doc = body.data.document;
    if (doc.status === 'done' || doc.status === 'error') return doc;
    if (Date.now() > until) throw new Error(`job ${id} still ${doc.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function download(url: string, key: string, id: string): Promise<{ status: number; bytes: Buffer; headers: Headers }> {
  const res = await fetch(`${url}/v1/documents/${id}/result`, { headers: { 'x-api-key': key } });
  return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()), headers: res.headers };
}
