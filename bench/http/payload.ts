// The load-test input: about 1 KB of the malformed JSON a language model replies with — prose
// before a markdown fence, unquoted keys, single quotes, trailing commas, a Python literal, a
// comment, and a reply cut off mid-object.
export const LLM_REPLY = `Sure! Here is the customer record you asked for, as JSON:

\`\`\`json
{
  id: 48213,
  name: 'Ada Lovelace',
  "email": "ada@example.org",
  "active": True,
  "tags": ['vip', 'early-adopter', 'newsletter',],
  // computed nightly
  "score": 97.5,
  "address": {
    street: '12 St James\\'s Square',
    "city": "London",
    "postcode": "SW1Y 4JH",
    "country": "GB",
  },
  "orders": [
    {"order_id": "A-1001", "total": 129.99, "currency": "GBP", "items": 3, "status": 'shipped'},
    {"order_id": "A-1002", "total": 18.5, "currency": "GBP", "items": 1, "status": 'delivered'},
    {"order_id": "A-1003", "total": 240, "currency": "GBP", "items": 7, "status": 'processing'},
  ],
  "notes": "Prefers email contact. Asked about the analytical engine attachment; follow up in Q3.",
  "preferences": {"language": "en-GB", "timezone": "Europe/London", "marketing": False},
  "last_login": "2024-05-14T09:31:22Z",
  "history": [{"event": "signup", "at": "2019-02-01"}, {"event": "upgrade", "at": "2021-07-19"
`;

export const REPAIR_BODY = JSON.stringify({ raw_output: LLM_REPLY });

/**
 * One push of a streaming session in the scale benches: the start of a ~100-byte record and a
 * comma, pushed again and again (the session's text is a run of records cut mid-way).
 */
export const PUSH_CHUNK = JSON.stringify({ id: 0, name: 'a record of about one hundred bytes', tags: ['x', 'y', 'z'], ok: true }).slice(0, 96) + ', ';
