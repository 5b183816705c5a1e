// Broken model output to try in the playground: each shows a family of repairs.

export interface Example {
  id: string;
  label: string;
  input: string;
  schema?: object;
  mode?: 'strict' | 'lenient';
}

export const EXAMPLES: readonly Example[] = [
  {
    id: 'fenced',
    label: 'Chatty answer in a Markdown fence',
    input: "Sure! Here's the JSON you asked for:\n```json\n{name: 'Ada Lovelace', \"born\": 1815, \"languages\": [\"English\", \"French\",],}\n```\nLet me know if you need anything else.",
  },
  {
    id: 'truncated',
    label: 'Output cut off mid-string (max tokens)',
    input: '{"id": 42, "title": "Quarterly report", "tags": ["finance", "q3"], "summary": "Revenue grew by 12% while costs',
  },
  {
    id: 'python',
    label: 'Python literals, comments and NaN',
    input: "{\n  'ok': True,\n  'retry': None, // no retry needed\n  'score': NaN,\n  'ratio': .75\n}",
  },
  {
    id: 'smart-quotes',
    label: 'Smart quotes and a missing comma',
    input: '{“city”: “Paris” “country”: “France”, "population": 2102650}',
  },
  {
    id: 'schema',
    label: 'Strings where the schema wants numbers (schema, strict mode)',
    input: '{"qty": "3", "price": "9.50", "status": "Shipped", "note": "leave at the door"}',
    schema: {
      type: 'object',
      properties: {
        qty: { type: 'integer' },
        price: { type: 'number' },
        status: { enum: ['pending', 'shipped', 'delivered'] },
      },
      required: ['qty', 'price', 'status'],
    },
    mode: 'strict',
  },
  {
    id: 'apology',
    label: 'No JSON at all (an error)',
    input: "I'm sorry, but I can't produce that as JSON.",
  },
];
