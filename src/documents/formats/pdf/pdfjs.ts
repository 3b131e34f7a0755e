// pdf.js' Node build, loaded with the built-ins it replaces put back. Its bundled core-js polyfills replace
// Array.prototype.push (V8 before 12.2 throws the wrong error type for a push on a non-writable length) and
// JSON.parse (for the reviver's source text) on the whole thread, which slows every push and parse of the PDF
// thread's own code, pdf-lib's and fontkit's too; pdf.js needs neither change.
const native = { push: Array.prototype.push, parse: JSON.parse };

/** The native built-ins put back where pdf.js' polyfills replaced them. */
export function restoreBuiltins(): void {
  if (Array.prototype.push !== native.push) Object.defineProperty(Array.prototype, 'push', { value: native.push, writable: true, configurable: true, enumerable: false });
  if (JSON.parse !== native.parse) Object.defineProperty(JSON, 'parse', { value: native.parse, writable: true, configurable: true, enumerable: false });
}

const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
restoreBuiltins();

export const getDocument = pdfjs.getDocument;
export type { PDFDocumentProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
