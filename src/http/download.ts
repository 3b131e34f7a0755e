// Content-Disposition for a download: the name as ASCII in filename= (quotes and controls dropped) and exactly,
// UTF-8, in filename*= (RFC 6266) for clients that read it.
export function attachment(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}
