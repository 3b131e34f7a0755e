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
      memoryCharactersServed: { type: 'integer', description: 'Characters of this period served from translation memories (exact segments); included in charactersUsed.' },
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
