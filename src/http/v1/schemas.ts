// JSON schemas of the /v1 routes: Fastify validates with them and the OpenAPI document is generated from them.
// `q` is deliberately untyped here: the service checks it so its messages (counts, limits, index of a bad
// element) are the same on every surface.

const errorResponse = {
  type: 'object',
  properties: {
    error: {
      type: 'object',
      properties: { code: { type: 'integer' }, message: { type: 'string' }, type: { type: 'string' } },
    },
  },
} as const;

const errors = { 400: errorResponse, 401: errorResponse, 403: errorResponse, 429: errorResponse, 500: errorResponse };

/** Every /v1 success body is `{"data": {...}}`. */
const inData = <P extends Record<string, unknown>>(properties: P) =>
  ({ type: 'object', properties: { data: { type: 'object', properties } } }) as const;

const q = {
  description: 'Text or texts: a string or an array of 1 to 128 strings (DRAGOMAN_MAX_STRINGS).',
} as const;

export const translateSchema = {
  summary: 'Translate text',
  headers: { type: 'object', properties: { 'x-api-key': { type: 'string' } } },
  body: {
    type: 'object',
    required: ['q', 'target'],
    properties: {
      q,
      target: { type: 'string', description: 'Target language code (GET /v1/languages).' },
      source: { type: ['string', 'null'], description: 'Source language code; detected per string when omitted, null, "" or "auto".' },
      format: { type: ['string', 'null'], enum: ['text', 'html', null], description: 'text (default; also when null) or html.' },
      glossary: { type: ['string', 'null'], description: "Id of one of the key's glossaries (POST /v1/glossaries): its terms come out as its target terms." },
      memory: { type: ['string', 'null'], description: "Id of one of the key's translation memories (POST /v1/memories): exact segments come back as stored." },
      memoryThreshold: { type: 'integer', minimum: 0, maximum: 100, description: 'Least similarity (0-100) of a fuzzy match reported with matches: true; default 75.' },
      matches: { type: 'boolean', description: "With memory: each translation carries the memory's matches of its sentences (source, target, similarity)." },
      memoryUpdate: { type: 'boolean', description: "With memory: this request's machine translations are added to the memory as unreviewed segments." },
      model: { type: ['string', 'null'], description: '"quality" (an LLM translator of the pair), "speed" (an encoder-decoder route) or an installed model\'s name; absent: the usual order. 400 when the pair has no such model.' },
      context: { type: ['string', 'null'], description: 'Text around q, read by an LLM translator that declares a context wording, never translated nor charged (at most 2,000 characters).' },
      instructions: { type: 'array', items: { type: 'string' }, description: 'Up to 10 instructions of up to 300 characters for an LLM translator that declares an instructions wording.' },
      formality: { type: ['string', 'null'], enum: ['default', 'more', 'less', null], description: 'A register, for an LLM translator that declares a wording for it.' },
    },
  },
  response: {
    200: inData({
      translations: {
        type: 'array',
        items: {
          type: 'object',
          required: ['translatedText', 'input'],
          properties: {
            translatedText: { type: 'string' },
            detectedSourceLanguage: { type: 'string' },
            input: { type: 'string' },
            memory: {
              type: 'object',
              properties: { segments: { type: 'integer' }, exact: { type: 'integer' }, characters: { type: 'integer' } },
            },
            matches: {
              type: 'array',
              items: {
                type: 'object',
                properties: { segment: { type: 'string' }, source: { type: 'string' }, target: { type: 'string' }, similarity: { type: 'integer' } },
              },
            },
            check: {
              type: 'object',
              description: "Present when an LLM translator's answer to a sentence of this string was not taken for a translation: sentences judged, answered again by the pair's NMT model, and failed with none installed (kept as the LLM answered); the reasons.",
              properties: {
                judged: { type: 'integer' }, replaced: { type: 'integer' }, failed: { type: 'integer' },
                reasons: { type: 'array', items: { type: 'string', enum: ['empty', 'too long', 'wrong language'] } },
              },
            },
          },
        },
      },
    }),
    ...errors,
  },
} as const;

export const detectSchema = {
  summary: 'Detect the language of text',
  body: { type: 'object', required: ['q'], properties: { q } },
  response: {
    200: inData({
      detections: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            language: { type: 'string' },
            confidence: { type: 'number' },
            isReliable: { type: 'boolean' },
            input: { type: 'string' },
          },
        },
      },
    }),
    ...errors,
  },
} as const;

export const languagesSchema = {
  summary: 'Languages the installed models translate',
  querystring: {
    type: 'object',
    properties: { target: { type: 'string', description: 'Localize the names into this language.' } },
  },
  response: {
    200: inData({
      languages: {
        type: 'array',
        items: { type: 'object', properties: { language: { type: 'string' }, name: { type: 'string' } } },
      },
      demo: {
        type: 'object',
        description: 'Only when the server runs its demo models (no model installed): which, and how to install real ones.',
        properties: { models: { type: 'array', items: { type: 'string' } }, note: { type: 'string' } },
      },
    }),
    ...errors,
  },
} as const;

const limit = { type: ['integer', 'null'], description: 'null = unlimited' } as const;

export const usageSchema = {
  summary: "The calling key's usage this month",
  response: {
    200: inData({
      keyId: { type: 'string' },
      plan: { type: 'string' },
      period: { type: 'string' },
      periodStart: { type: 'string' },
      periodEnd: { type: 'string' },
      charactersUsed: { type: 'integer' },
      characterLimit: limit,
      charactersRemaining: limit,
      requests: { type: 'integer' },
      requestsPerMinute: limit,
      storageBytesUsed: { type: 'integer' },
      storageBytesLimit: limit,
      memoryCharactersServed: { type: 'integer', description: 'Characters of this period served from translation memories (exact segments); included in charactersUsed when memoryCharactersCharged.' },
      memoryCharactersCharged: { type: 'boolean', description: "Whether the key's plan charges characters served from a memory (DRAGOMAN_MEMORY_CHARGED, DRAGOMAN_MEMORY_CHARGED_<PLAN>)." },
    }),
    ...errors,
  },
} as const;

export const signupSchema = {
  summary: 'Create a free-plan key (no payment data)',
  // The one /v1 call without a key (the document's default asks for one).
  security: [],
  body: {
    type: ['object', 'null'],
    properties: {
      email: { type: 'string', maxLength: 254 },
      name: { type: 'string', maxLength: 100 },
    },
  },
  response: {
    201: inData({
      id: { type: 'string' },
      key: { type: 'string' },
      plan: { type: 'string' },
      message: { type: 'string' },
    }),
    400: errorResponse,
    429: errorResponse,
    500: errorResponse,
  },
} as const;

/** The document object (src/documents/job.ts DocumentView). */
export const documentView = {
  type: 'object',
  required: ['id', 'status', 'filename', 'resultFilename', 'format', 'target', 'characters', 'progress', 'createdAt', 'expiresAt'],
  properties: {
    id: { type: 'string' },
    status: { type: 'string', enum: ['queued', 'translating', 'done', 'error'] },
    filename: { type: 'string', description: 'The uploaded file name.' },
    resultFilename: { type: 'string', description: 'The name the result downloads under: report.de.docx for report.docx into de.' },
    format: { type: 'string' },
    source: { type: 'string', description: 'The source language the client gave.' },
    detectedSourceLanguage: { type: 'string', description: 'The detected source language, when none was given (und: none recognised).' },
    target: { type: 'string' },
    glossary: { type: 'string' },
    memory: { type: 'string', description: "The key's translation memory the document is translated with." },
    memoryThreshold: { type: 'integer', description: 'Least similarity (0-100) of a fuzzy match an XLIFF result reports.' },
    characters: { type: 'integer', description: 'Characters charged.' },
    progress: { type: 'number', description: '0 to 1.' },
    createdAt: { type: 'string', format: 'date-time' },
    finishedAt: { type: 'string', format: 'date-time', description: 'When it became done or failed.' },
    expiresAt: { type: 'string', format: 'date-time' },
    error: { type: 'object', properties: { message: { type: 'string' } } },
  },
} as const;

export const DOCUMENT_PAGE_DEFAULT = 20;
export const DOCUMENT_PAGE_MAX = 100;

export const documentListSchema = {
  summary: "The calling key's documents, newest first",
  description:
    "Jobs of the calling key that have not expired; another key's jobs are never listed. Paged: `limit` per page, " +
    'and `cursor` set to the previous page\'s `nextCursor` for the next one (null on the last page).',
  querystring: {
    type: 'object',
    properties: {
      limit: { type: 'string', description: `Documents per page, 1 to ${DOCUMENT_PAGE_MAX} (default ${DOCUMENT_PAGE_DEFAULT}).` },
      cursor: { type: 'string', description: "The previous page's nextCursor." },
    },
  },
  response: {
    200: inData({
      documents: { type: 'array', items: documentView },
      nextCursor: { type: ['string', 'null'] },
    }),
    ...errors,
  },
} as const;
