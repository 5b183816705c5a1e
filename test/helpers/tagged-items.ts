// Model output of the shape that exposed the schema work budget: an array of objects, each tagged
// by a `type` member, validated against `items: {anyOf: [five object schemas]}`, every item needing
// three coercions (the model wrote `id`, `done` and `meta.score` as strings). 193 of them are
// about 51 KB; the engine and server tests share it.
export const KINDS = ['text', 'image', 'code', 'quote', 'list'];

/** One branch per kind; `tagged: false` leaves the `type` member without its const. */
function branch(kind: string, tagged: boolean, index: number): object {
  return {
    type: 'object',
    properties: {
      type: tagged ? { const: kind } : { type: 'string' },
      id: { type: 'integer' }, title: { type: 'string' }, body: { type: 'string' },
      status: { enum: ['draft', 'final'] }, priority: { enum: ['low', 'high'] }, done: { type: 'boolean' },
      tags: { type: 'array', items: { type: 'string' } },
      meta: { type: 'object', properties: { source: { enum: ['model', 'user'] }, score: { type: 'number' } } },
      author: { type: 'object', properties: { name: { type: 'string' }, role: { enum: ['editor', 'writer'] } } },
      // Untagged branches still differ in what they declare.
      [`extra${index}`]: { type: 'string' },
    },
    required: ['type', 'id', 'title'],
  };
}

/** `branches` object schemas under `items.anyOf` (kinds repeat past five). */
export function itemsSchema(options: { tagged: boolean; branches?: number }): object {
  const count = options.branches ?? KINDS.length;
  return { type: 'array', items: { anyOf: Array.from({ length: count }, (_, i) => branch(KINDS[i % KINDS.length]!, options.tagged, i)) } };
}

export function taggedItems(count: number): object[] {
  return Array.from({ length: count }, (_, i) => ({
    type: KINDS[i % KINDS.length], id: String(i), title: `Item ${i}`,
    body: `The body of item ${i}, a sentence of text as a model writes it.`,
    status: 'draft', priority: 'low', done: 'true', tags: ['alpha', 'beta'],
    meta: { source: 'model', score: '0.5' }, author: { name: 'Ada', role: 'editor' },
  }));
}

/** What each item becomes: the three strings coerced. */
export function repairedItem(item: object): object {
  const it = item as { id: string; meta: object };
  return { ...item, id: Number(it.id), done: true, meta: { ...it.meta, score: 0.5 } };
}
