// Table-driven: every repair kind, with the value, the reported types and the overall confidence.
import t from 'tap';
import { createStream, repair } from '../../engine/index.js';

type Row = [input: string, value: unknown, types: string[], confidence?: 'high' | 'medium' | 'low'];

const rows: Row[] = [
  // fences and prose
  ['```json\n{"a": 1}\n```', { a: 1 }, ['removed_markdown_fence']],
  ['```\n[1, 2]\n```', [1, 2], ['removed_markdown_fence']],
  ['Sure! Here is the result:\n```json\n{"ok": true}\n```\nLet me know if you need more.', { ok: true },
    ['stripped_leading_text', 'removed_markdown_fence', 'stripped_trailing_text']],
  ["Here's the JSON you asked for: {\"name\": \"Ada\"}", { name: 'Ada' }, ['stripped_leading_text']],
  ['{"a": 1} I hope this helps!', { a: 1 }, ['stripped_trailing_text']],
  ['```{"a":"b"}```', { a: 'b' }, ['removed_markdown_fence']],
  ['<think>The user wants {a}.</think>\n{"a": 2}', { a: 2 }, ['stripped_leading_text']],
  // A reasoning block never closed: the JSON on its own line in it is the answer.
  ['<think>I will output {"a": 0} maybe\n\n{"a": 1}', { a: 1 }, ['stripped_leading_text'], 'medium'],
  ['<think>x</think><think>y\n{"b": 2', { b: 2 }, ['stripped_leading_text', 'closed_object_bracket'], 'medium'],
  // A bracketed word in the prose (a citation, a tag) is prose, not the root; arrays stay arrays.
  ['Note [1]: see below.\n{"a": 1, "b": [2]}', { a: 1, b: [2] }, ['stripped_leading_text']],
  ['I [think] this is right:\n```json\n{"a": 1}\n```', { a: 1 }, ['stripped_leading_text', 'removed_markdown_fence']],
  ['Here: [1, 2, 3]', [1, 2, 3], ['stripped_leading_text']],
  ['Result:\n[1]', [1], ['stripped_leading_text']],
  ['According to the source [2], the values are:\n{"v": 3}', { v: 3 }, ['stripped_leading_text']],
  ['As shown in [1].\n{"v": 3}', { v: 3 }, ['stripped_leading_text']],
  ['If nothing is found return {}. Found:\n{"x": 1}', { x: 1 }, ['stripped_leading_text']],
  ['Per the [API docs](https://api.x.com), the payload is:\n{"id": 1}', { id: 1 }, ['stripped_leading_text']],
  ['- [x] parsed\n- [ ] validated\n{"ok": true}', { ok: true }, ['stripped_leading_text']],
  // A short fragment ending a line of prose is prose when an object or array of the other kind
  // starts a later line, or when it reads as JSON only through guesses; otherwise it stays the root.
  ['See reference [1]\n{"v": 3}', { v: 3 }, ['stripped_leading_text']],
  ['- Items: [apple, pear]\n\n{"count": 2}', { count: 2 }, ['stripped_leading_text']],
  ['1. Set "name" to {first, last}\n2. Output:\n{"name": {"first": "A"}}', { name: { first: 'A' } }, ['stripped_leading_text']],
  ['Results: [1]\n[2]\n[3]', [[1], [2], [3]], ['stripped_leading_text', 'wrapped_multiple_values'], 'medium'],
  ['The result: [1, 2]\nDone.', [1, 2], ['stripped_leading_text', 'stripped_trailing_text']],
  ['Answer: {"a": 1}\n[Note: values are estimates]', { a: 1 }, ['stripped_leading_text', 'stripped_trailing_text']],
  ['Set the fields to {first, last}', {}, ['stripped_leading_text', 'quoted_unquoted_keys', 'removed_member_without_value', 'dropped_value_text'], 'low'],
  // The only JSON is a fragment with prose after it on its line: the rescan reads it as JSON.
  ['Here you go: {"a": 1} hope this helps!', { a: 1 }, ['stripped_leading_text', 'stripped_trailing_text']],
  // Prose with brackets of its own, then a fenced block: the block is the answer.
  ['Expected shape: `{"a": 1}`.\n```json\n{"a": 7}\n```', { a: 7 }, ['stripped_leading_text', 'removed_markdown_fence'], 'medium'],
  ['The format is {"a": number}. Here you go:\n```json\n{"a": 5}\n```', { a: 5 }, ['stripped_leading_text', 'removed_markdown_fence']],
  ['Fill in {name} below:\n```\n{"name": "Ann"}\n```', { name: 'Ann' }, ['stripped_leading_text', 'removed_markdown_fence']],
  // A footnote after the JSON is trailing prose, not a second value; values one per line still are.
  ['{"a": 1}\n[1] Source: Wikipedia', { a: 1 }, ['stripped_trailing_text']],
  ['{"a": 1}\n{"b": 2}', [{ a: 1 }, { b: 2 }], ['wrapped_multiple_values'], 'medium'],
  // So is a note in brackets alone on its line, when it reads as words; values in brackets are values.
  ['{"a": 1}\n[Note: values are estimates]', { a: 1 }, ['stripped_trailing_text']],
  ['{"a": 1}\n{Note: values are estimates}', { a: 1 }, ['stripped_trailing_text']],
  ['[1, 2]\n[End of output]\n', [1, 2], ['stripped_trailing_text']],
  ['[1][2]', [[1], [2]], ['wrapped_multiple_values'], 'medium'],
  ['[true]\n[false]', [[true], [false]], ['wrapped_multiple_values'], 'medium'],
  ['{"a": 1}\n{b: 2}', [{ a: 1 }, { b: 2 }], ['wrapped_multiple_values', 'quoted_unquoted_keys'], 'medium'],
  ['{"a": 1}\n{name: John Smith}', [{ a: 1 }, { name: 'John Smith' }], ['wrapped_multiple_values', 'quoted_unquoted_keys', 'quoted_bare_string'], 'medium'],
  ['["x"]\n[apple, pear]', [['x'], ['apple', 'pear']], ['wrapped_multiple_values', 'quoted_bare_string'], 'medium'],
  // truncation, cut anywhere: inside a string or a number, the TRUNCATED_OUTPUT warning makes it medium
  ['{"a": 1, "b": [1, 2', { a: 1, b: [1, 2] }, ['closed_array_bracket', 'closed_object_bracket'], 'medium'],
  ['{"a": "hello wor', { a: 'hello wor' }, ['closed_string', 'closed_object_bracket'], 'medium'],
  ['{"a": 1, "b', { a: 1 }, ['closed_string', 'closed_object_bracket', 'removed_truncated_member'], 'medium'],
  ['{"a": 1, "b": ', { a: 1 }, ['closed_object_bracket', 'removed_truncated_member'], 'medium'],
  ['{"a": "x\\u00', { a: 'x' }, ['closed_string', 'closed_object_bracket'], 'medium'],
  ['{"a": "x\\', { a: 'x' }, ['closed_string', 'closed_object_bracket'], 'medium'],
  ['{"n": 12.', { n: 12 }, ['completed_truncated_number', 'closed_object_bracket'], 'medium'],
  ['{"n": 2e-', { n: 2 }, ['completed_truncated_number', 'closed_object_bracket'], 'medium'],
  ['{"n": -', {}, ['closed_object_bracket', 'removed_truncated_member'], 'medium'],
  ['[1, -', [1], ['removed_truncated_member', 'closed_array_bracket', 'removed_trailing_comma'], 'medium'],
  ['{"ok": tru', { ok: true }, ['completed_truncated_literal', 'closed_object_bracket'], 'medium'],
  ['[fals', [false], ['completed_truncated_literal', 'closed_array_bracket'], 'medium'],
  ['{"v": nul', { v: null }, ['completed_truncated_literal', 'closed_object_bracket'], 'medium'],
  // keys and quotes
  ['{name: "Ada", age: 36}', { name: 'Ada', age: 36 }, ['quoted_unquoted_keys']],
  ["{'name': 'Ada'}", { name: 'Ada' }, ['converted_single_quotes']],
  ["{'text': 'it\\'s here'}", { text: "it's here" }, ['converted_single_quotes']],
  ["{'text': 'it's here'}", { text: "it's here" }, ['converted_single_quotes']],
  ["{'a': 'James'', 'b': '', 'c': ['the Joneses'']}", { a: "James'", b: '', c: ["the Joneses'"] }, ['converted_single_quotes']],
  ['{“a”: “b”}', { a: 'b' }, ['converted_smart_quotes']],
  ['{"a": "He said "hi" to me"}', { a: 'He said "hi" to me' }, ['escaped_inner_quote'], 'medium'],
  ['{"a": "He said "hi"", "b": 1}', { a: 'He said "hi"', b: 1 }, ['escaped_inner_quote'], 'medium'],
  ['{"": "x", "5": "a" + "b"}', { '': 'x', 5: 'ab' }, ['concatenated_strings']],
  // commas and colons
  ['[1, 2, 3,]', [1, 2, 3], ['removed_trailing_comma']],
  ['{"a": 1,}', { a: 1 }, ['removed_trailing_comma']],
  ['[1,, 2]', [1, 2], ['removed_duplicate_comma']],
  ['{"a": 1,, "b": 2}', { a: 1, b: 2 }, ['removed_duplicate_comma']],
  ['[1 2 3]', [1, 2, 3], ['inserted_missing_comma']],
  ['{"a": 1\n"b": 2}', { a: 1, b: 2 }, ['inserted_missing_comma']],
  ['{"a" 1}', { a: 1 }, ['inserted_missing_colon']],
  ['{"a" = 1, "b" => "x"}', { a: 1, b: 'x' }, ['removed_invalid_character', 'inserted_missing_colon'], 'medium'],
  // literals and numbers
  ['[NaN, Infinity, -Infinity]', [null, null, null], ['replaced_nan'], 'medium'],
  ['{"a": True, "b": False, "c": None}', { a: true, b: false, c: null }, ['replaced_python_literal']],
  ['{"a: 1, "b": 2}', { a: 1, b: 2 }, ['closed_string'], 'medium'],
  ['{"a: 1}', { a: 1 }, ['closed_string'], 'medium'],
  // a name holding a quote goes on to the quote its colon follows; quoted words in a value stay in it
  ['{"height 5\" tall": true, "the "best" one": 1}', { 'height 5" tall': true, 'the "best" one': 1 }, ['escaped_inner_quote'], 'medium'],
  ['{"note": "use "red", "green" or "blue" only", "n": 1}', { note: 'use "red", "green" or "blue" only', n: 1 }, ['escaped_inner_quote'], 'medium'],
  // a name closed by the other kind of quote, its colon right after it
  ['{"name\': "Ada", "age\': 3}', { name: 'Ada', age: 3 }, ['closed_string'], 'medium'],
  ['{\'name": "Ada"}', { name: 'Ada' }, ['converted_single_quotes', 'closed_string'], 'medium'],
  ['{a: `text here`, `b`: ``}', { a: 'text here', b: '' }, ['quoted_unquoted_keys', 'converted_smart_quotes']],
  ['{"a": TRUE, "b": Null, "c": NONE, "d": FALSE}', { a: true, b: null, c: null, d: false }, ['replaced_python_literal']],
  ['{"a": undefined}', { a: null }, ['replaced_undefined']],
  ['[.5, -.5, 5.]', [0.5, -0.5, 5], ['normalized_decimal']],
  ['{"zip": 007}', { zip: '007' }, ['quoted_bare_string'], 'medium'],
  // comments, left alone inside strings
  ['{"a": 1 // one\n}', { a: 1 }, ['removed_comments']],
  ['{/* c */ "a": 1}', { a: 1 }, ['removed_comments']],
  ['{"a": 1 # py\n}', { a: 1 }, ['removed_comments']],
  // Where a value starts, `#` with a word after it is the value (a colour, a hashtag), not a comment.
  // A quote, then `,` or `:` and prose that runs to the real closing quote: the quote is inside the text.
  ['{"text": "She said "yes", then left.", "n": 1}', { text: 'She said "yes", then left.', n: 1 }, ['escaped_inner_quote'], 'medium'],
  ['{"desc": "Size: 10", wide", "n": 2}', { desc: 'Size: 10", wide', n: 2 }, ['escaped_inner_quote'], 'medium'],
  ['{"text": "Label "x": value"}', { text: 'Label "x": value' }, ['escaped_inner_quote'], 'medium'],
  ['{"a": "x", b: 2, "c": "y", d: 3}', { a: 'x', b: 2, c: 'y', d: 3 }, ['quoted_unquoted_keys']],
  // The output began inside a container (a prefilled `{` or `[`), or a leading string has commentary after it.
  ['"a": 1, "b": 2}', { a: 1, b: 2 }, ['inserted_missing_opening_bracket'], 'medium'],
  ['"Paris", "London"]', ['Paris', 'London'], ['inserted_missing_opening_bracket'], 'medium'],
  ['1, 2, 3]', [1, 2, 3], ['inserted_missing_opening_bracket'], 'medium'],
  // members after prose whose `{` was left out, a bracket among them: one object, not that bracket
  ['Result:\n"a": 1,\n"b": [2],\n"c": {"d": true}\n', { a: 1, b: [2], c: { d: true } }, ['stripped_leading_text', 'inserted_missing_opening_bracket', 'closed_object_bracket'], 'medium'],
  ['42, that is the answer', 42, ['stripped_trailing_text', 'removed_trailing_comma']],
  ['{"a": 1}, {"a": 2}]', [{ a: 1 }, { a: 2 }], ['wrapped_multiple_values', 'removed_extra_closing_bracket'], 'medium'],
  ['"positive"\nReason: the text is happy.', 'positive', ['stripped_trailing_text']],
  ['"He said "hi", she said"', 'He said "hi", she said', ['escaped_inner_quote'], 'medium'],
  // Raw backslashes before letters: LaTeX and Windows paths keep them; real \n and \t escapes stay.
  ['{"tex": "a \\times b \\cdot c",}', { tex: 'a \\times b \\cdot c' }, ['escaped_backslash', 'removed_trailing_comma']],
  ["{'path': 'C:\\Users\\bob\\file.txt'}", { path: 'C:\\Users\\bob\\file.txt' }, ['converted_single_quotes', 'escaped_backslash']],
  ['{"a": "Hello\\nWorld", "b": "Name:\\tAlice",}', { a: 'Hello\nWorld', b: 'Name:\tAlice' }, ['removed_trailing_comma']],
  // A string with no unescaped backslash is read as JSON reads it, fenced or not: \ni) \ne.g. \nu \theta.
  ['```json\n{"note": "Options:\\ni) red", "ex": "See\\ne.g. this", "m": "x\\nu = 2", "f": "angle\\theta"}\n```',
    { note: 'Options:\ni) red', ex: 'See\ne.g. this', m: 'x\nu = 2', f: 'angle\theta' }, ['removed_markdown_fence']],
  // An array whose `]` was forgotten before the next member.
  ['{\n  "tags": ["a", "b",\n  "count": 2\n}', { tags: ['a', 'b'], count: 2 }, ['closed_array_bracket', 'removed_trailing_comma']],
  // Python's float repr, and tool calls wrapped in tags one after another.
  ["{'a': nan, 'b': inf, 'c': -inf}", { a: null, b: null, c: null }, ['converted_single_quotes', 'replaced_nan'], 'medium'],
  ['<tool_call>\n{"name": "a"}\n</tool_call>\n<tool_call>\n{"name": "b"}\n</tool_call>', [{ name: 'a' }, { name: 'b' }],
    ['stripped_leading_text', 'stripped_trailing_text', 'wrapped_multiple_values'], 'medium'],
  // Members after the prose whose `{` was left out are one object; a line that only looks like a
  // member (no JSON value after its colon) is not.
  ['Here:\n"name": "A",\n"age": 3', { name: 'A', age: 3 }, ['stripped_leading_text', 'inserted_missing_opening_bracket', 'closed_object_bracket'], 'medium'],
  ['Result:\n  "ok": true,\n  "n": 2\n}', { ok: true, n: 2 }, ['stripped_leading_text', 'inserted_missing_opening_bracket'], 'medium'],
  // A scalar answer after prose, after a colon or alone on its line; not a number inside a sentence.
  ['The answer is: 42', 42, ['stripped_leading_text']],
  ['Sentiment:\n"positive"', 'positive', ['stripped_leading_text']],
  ['Answer: True.', true, ['stripped_leading_text', 'replaced_python_literal', 'stripped_trailing_text']],
  ['{"color": #ff0000, "bg": "#fff"}', { color: '#ff0000', bg: '#fff' }, ['quoted_bare_string'], 'medium'],
  ['{"a": # none yet\n 1}', { a: 1 }, ['removed_comments']],
  ['{"url": "http://x.y/*z*/", "c": "a, b", "n": "NaN", "f": "```", "q": "\'"', {
    url: 'http://x.y/*z*/', c: 'a, b', n: 'NaN', f: '```', q: "'" }, ['closed_object_bracket']],
  // bare strings
  ['{"status": active}', { status: 'active' }, ['quoted_bare_string'], 'medium'],
  ['{name: John Smith}', { name: 'John Smith' }, ['quoted_unquoted_keys', 'quoted_bare_string'], 'medium'],
  // clock times, amounts with a currency sign and numbers with their unit are text too
  ['{"time": 10:30, "tz": "UTC"}', { time: '10:30', tz: 'UTC' }, ['quoted_bare_string'], 'medium'],
  ['[10:30 PM, 16:9, 1:30:00]', ['10:30 PM', '16:9', '1:30:00'], ['quoted_bare_string'], 'medium'],
  ['{"total": $1,234.56, "n": 2}', { total: '$1,234.56', n: 2 }, ['quoted_bare_string'], 'medium'],
  ['{"a": $1, "b": €12,500,000}', { a: '$1', b: '€12,500,000' }, ['quoted_bare_string'], 'medium'],
  ['{"weight": 5 kg, "speed": 90 km/h, "share": 50 %, "h": 180cm}', { weight: '5 kg', speed: '90 km/h', share: '50 %', h: '180cm' }, ['quoted_bare_string'], 'medium'],
  ['[1 true, 2 3]', [1, true, 2, 3], ['inserted_missing_comma']],
  ['{"a": 5 b: 6}', { a: 5, b: 6 }, ['inserted_missing_comma', 'quoted_unquoted_keys']],
  // strings
  ['{"a": "line one\nline two"}', { a: 'line one\nline two' }, ['escaped_control_character']],
  ['{"re": "\\d+\\s"}', { re: '\\d+\\s' }, ['escaped_backslash']],
  // Every JSON escape in a value of an otherwise broken document reads as JSON.parse reads it; one
  // escape JSON lacks anywhere in the string hands the whole string to the raw-backslash rules.
  ['{a: "q\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude80 end",}', { a: 'q"\\/\b\f\n\r\t\u00e9\ud83d\ude80 end' }, ['quoted_unquoted_keys', 'removed_trailing_comma']],
  ['{a: "\\u12 and \\u00zz",}', { a: '\\u12 and \\u00zz' }, ['quoted_unquoted_keys', 'escaped_backslash', 'removed_trailing_comma']],
  ['{a: "\\frac{1}{2} \\d",}', { a: '\\frac{1}{2} \\d' }, ['quoted_unquoted_keys', 'escaped_backslash', 'removed_trailing_comma']],
  // `\f` or `\b` before a letter is nobody's form feed or backspace: LaTeX or a path. In a string
  // that is otherwise valid JSON that reading is chosen (medium); with another raw backslash, high.
  ['{"formula": "\\frac{1}{2}"}', { formula: '\\frac{1}{2}' }, ['escaped_backslash'], 'medium'],
  ['{"f": "\\frac{1}{2} \\times 3", "g": "\\beta"}', { f: '\\frac{1}{2} \\times 3', g: '\\beta' }, ['escaped_backslash'], 'medium'],
  ['{"f": "\\frac{a}{b} + \\alpha"}', { f: '\\frac{a}{b} + \\alpha' }, ['escaped_backslash']],
  // Python's `\xHH`: its character; in a double-quoted string it may be a path, so medium
  ["{'name': 'Caf\\xe9'}", { name: 'Café' }, ['converted_single_quotes', 'removed_invalid_escape']],
  ['{"name": "Caf\\xe9"}', { name: 'Café' }, ['removed_invalid_escape'], 'medium'],
  ['{"p": "C:\\xyz"}', { p: 'C:\\xyz' }, ['escaped_backslash']],
  // numbers in a spelling JavaScript, JSON5 and Python share: hex and digit groups
  ['{mask: 0xFF, n: -0x1f, pop: 1_000_000, s: 1_000.5}', { mask: 255, n: -31, pop: 1000000, s: 1000.5 }, ['quoted_unquoted_keys', 'normalized_decimal']],
  ['[0_1, 1__0, 0x, 0xFFFFFFFFFFFFFF]', ['0_1', '1__0', '0x', '0xFFFFFFFFFFFFFF'], ['quoted_bare_string'], 'medium'],
  ['"a" + "b" + "c"', 'abc', ['concatenated_strings']],
  // wrappers and several values
  ['callback({"a": 1});', { a: 1 }, ['removed_jsonp_wrapper']],
  ['{"_id": ObjectId("507f")}', { _id: '507f' }, ['removed_function_wrapper']],
  // JavaScript's `new` before a wrapper goes with it; BigInt literals a double holds are numbers
  ['{"created": new Date("2024-01-15"), "id": new  ObjectId("a1")}', { created: '2024-01-15', id: 'a1' }, ['removed_function_wrapper']],
  ['{"id": 123n, "n": -7n, "z": 0n}', { id: 123, n: -7, z: 0 }, ['normalized_decimal']],
  ['{"big": 9007199254740993n}', { big: '9007199254740993n' }, ['quoted_bare_string'], 'medium'],
  ['{"a": new Foo("x")}', { a: 'new Foo("x")' }, ['quoted_bare_string'], 'medium'],
  ['{"n": new NumberInt()}', { n: 'new NumberInt()' }, ['quoted_bare_string'], 'medium'],
  // a regular expression is its text, whole (a `/` in its class or escaped does not end it)
  ['{"pattern": /^[a-z]+$/i, "re": /a\\/b[/]c/g}', { pattern: '/^[a-z]+$/i', re: '/a\\/b[/]c/g' }, ['quoted_bare_string'], 'medium'],
  ['[1, 2, ...]', [1, 2], ['removed_ellipsis']],
  ['{"a": 1}\n{"b": 2}', [{ a: 1 }, { b: 2 }], ['wrapped_multiple_values'], 'medium'],
  ['{"a": 1}}', { a: 1 }, ['removed_extra_closing_bracket']],
  ['{"a": [1, 2}, "b": 3}', { a: [1, 2], b: 3 }, ['closed_mismatched_bracket'], 'medium'],
  ['[{"a": 1]', [{ a: 1 }], ['closed_object_bracket']],
  ['{"a":\u00a0"b"}', { a: 'b' }, ['normalized_whitespace']],
  ['{"total": 1,234.56, "n": 2}', { total: 1234.56, n: 2 }, ['merged_thousands_separator'], 'medium'],
  // a decimal comma in a member's value (not a group of three, no name after it): the number's point
  ['{"price": 12,50, "lat": 48,8566, "t": -3,5, "x": 0,5}', { price: 12.5, lat: 48.8566, t: -3.5, x: 0.5 }, ['normalized_decimal'], 'medium'],
  // a whole document escaped once more (a log line, a double JSON.stringify)
  ['{\\"name\\": \\"Ada\\", \\"n\\": 1}', { name: 'Ada', n: 1 }, ['unescaped_json_text'], 'medium'],
  ['Result: {\\n  \\"q\\": \\"say \\\\\\"hi\\\\\\"\\",\\n  \\"tags\\": [\\"a\\"]\\n}', { q: 'say "hi"', tags: ['a'] },
    ['unescaped_json_text', 'stripped_leading_text'], 'medium'],
  ['[\\"a\\", \\"b\\"', ['a', 'b'], ['unescaped_json_text', 'closed_array_bracket'], 'medium'],
  // Honest confidence: a repair that chose a value, dropped data or guessed where a value ends is
  // never high. Several values in prose: the answer is chosen by rule, at medium.
  ['First: {"a": 1} and second: {"a": 2}', { a: 2 }, ['stripped_leading_text'], 'medium'],
  ['I updated {"s": "old"} to {"s": "new"}', { s: 'new' }, ['stripped_leading_text'], 'medium'],
  ['{"a": 1} or maybe {"a": 2}', { a: 1 }, ['stripped_trailing_text'], 'medium'],
  ['[1, 2], 3]', [1, 2, 3], ['removed_extra_closing_bracket'], 'medium'],
  ['[1, 2], 3', [1, 2], ['stripped_trailing_text', 'removed_trailing_comma'], 'low'],
  ['{"price": 12.', { price: 12 }, ['completed_truncated_number', 'closed_object_bracket'], 'medium'],
  ['[```json\n{"a":"b"}\n```]', [{ a: 'b' }], ['removed_markdown_fence', 'stripped_trailing_text', 'closed_array_bracket'], 'medium'],
  ['{"key": "value}```', { key: 'value' }, ['closed_string', 'removed_markdown_fence'], 'medium'],
  // Members with no braces, at the start or after prose: one object.
  ['name: "John", age: 30', { name: 'John', age: 30 }, ['inserted_missing_opening_bracket', 'quoted_unquoted_keys', 'closed_object_bracket'], 'medium'],
  ['Result:\nid: 7, label: "x"', { id: 7, label: 'x' }, ['stripped_leading_text', 'inserted_missing_opening_bracket', 'quoted_unquoted_keys', 'closed_object_bracket'], 'medium'],
  ['Here you go:\nname: Alice, age: 30', 30, ['stripped_leading_text'], 'low'],
  // Calls: only the documented wrappers are unwrapped; any other call is its text, at low.
  ['{"formula": SUM(A1:A3)}', { formula: 'SUM(A1:A3)' }, ['quoted_bare_string'], 'low'],
  ['{"call": print("hi"), "b": 2}', { call: 'print("hi")', b: 2 }, ['quoted_bare_string'], 'low'],
  ['{"x": foo(1, 2)}', { x: 'foo(1, 2)' }, ['quoted_bare_string'], 'low'],
  ['{"t": Timestamp(1, 2), "n": NumberLong(2)}', { t: 'Timestamp(1, 2)', n: 2 }, ['quoted_bare_string', 'removed_function_wrapper'], 'low'],
  // A quote ending a line inside a string that already runs over lines is text when the next line
  // runs on to the real closing quote.
  ['{"t": "one\n"two"\nthree", "n": 1}', { t: 'one\n"two"\nthree', n: 1 }, ['escaped_control_character', 'escaped_inner_quote'], 'medium'],
  ['{"t": "one\n"two" three\nfour"}', { t: 'one\n"two" three\nfour' }, ['escaped_control_character', 'escaped_inner_quote'], 'medium'],
  ['{"a": "x"\n"b": 2}', { a: 'x', b: 2 }, ['inserted_missing_comma']],
  // A quoted value followed by a bare name and its colon: the comma is missing.
  ["{a: 'x' b: False, c: 1}", { a: 'x', b: false, c: 1 }, ['quoted_unquoted_keys', 'converted_single_quotes', 'inserted_missing_comma', 'replaced_python_literal']],
  ['{"a": "x" b: 2}', { a: 'x', b: 2 }, ['inserted_missing_comma', 'quoted_unquoted_keys']],
  // Members inside brackets: the writer meant an object.
  ['{"meta": ["kind": "doc", "v": 2]}', { meta: { kind: 'doc', v: 2 } }, ['converted_array_to_object'], 'medium'],
  ['["a": 1, "b": [1, 2]]', { a: 1, b: [1, 2] }, ['converted_array_to_object'], 'medium'],
  // Expressions are kept whole, as text, at low; a minus with a blank before a number is a sign.
  ['{"total": 2 * 10}', { total: '2 * 10' }, ['quoted_bare_string'], 'low'],
  ['{"n": 1 + 2, "m": 3}', { n: '1 + 2', m: 3 }, ['quoted_bare_string'], 'low'],
  ['[1 -2]', [1, -2], ['inserted_missing_comma']],
  ['{"x": - Infinity}', { x: null }, ['normalized_whitespace', 'replaced_nan'], 'medium'],
  ['{"x": - 5}', { x: -5 }, ['normalized_whitespace']],
  ['+42', 42, ['removed_invalid_character'], 'medium'],
  ['{"n": +42}', { n: 42 }, ['removed_invalid_character'], 'medium'],
  // scalars at the root
  ['tru', true, ['completed_truncated_literal'], 'medium'],
  ["'single'", 'single', ['converted_single_quotes']],
];

t.test('every repair kind: value, reported types, confidence', async (t) => {
  for (const [input, value, types, confidence = 'high'] of rows) {
    const r = repair(input);
    t.ok(r.success, `succeeds: ${JSON.stringify(input)}`);
    t.same(r.repaired, value, `value of ${JSON.stringify(input)}`);
    t.same(r.metadata.syntax_repairs.map((d) => d.type).sort(), [...types].sort(), `types of ${JSON.stringify(input)}`);
    t.equal(r.metadata.confidence, confidence, `confidence of ${JSON.stringify(input)}`);
    t.equal(r.metadata.was_repaired, true);
    t.same(r.metadata.repairs_applied, r.metadata.syntax_repairs);
  }
});

t.test('a comma between digits in an array separates two numbers: no decimal comma there', async (t) => {
  t.same(repair('[12,50]').repaired, [12, 50]);
  t.same(repair('{"a": [1,5]}').repaired, { a: [1, 5] });
});

t.test('every row streamed in 1-, 2- and 7-character pushes: finalize answers what repair does', async (t) => {
  for (const [input] of rows) {
    for (const step of [1, 2, 7]) {
      const s = createStream({});
      for (let i = 0; i < input.length; i += step) s.push(input.slice(i, i + step));
      t.same(s.finalize(), repair(input), `${JSON.stringify(input)} in ${step}-character pushes`);
    }
  }
});

t.test('RepairDetail carries position of the first occurrence and a count', async (t) => {
  const r = repair("{a: 'x', b: 'y'}");
  const keys = r.metadata.syntax_repairs.find((d) => d.type === 'quoted_unquoted_keys')!;
  t.match(keys, { confidence: 'high', safe: true, position: 1, count: 2 });
  const quotes = r.metadata.syntax_repairs.find((d) => d.type === 'converted_single_quotes')!;
  t.match(quotes, { position: 4, count: 2 });
  const bare = repair('{"a": yes}').metadata.syntax_repairs[0]!;
  t.match(bare, { type: 'quoted_bare_string', confidence: 'medium', safe: false, position: 6, count: 1 });
});

t.test('NaN gives the NAN_REPLACED warning and medium confidence', async (t) => {
  const r = repair('{"a": NaN, "b": NaN}');
  t.same(r.repaired, { a: null, b: null });
  t.equal(r.metadata.warnings.length, 1);
  t.match(r.metadata.warnings[0], { code: 'NAN_REPLACED', severity: 'medium' });
  t.equal(r.metadata.confidence, 'medium');
});

t.test('a reply cut inside a value, a key, or after a colon, comma or opener carries TRUNCATED_OUTPUT, once, so it is medium', async (t) => {
  const cut: Array<[string, number]> = [
    ['{"a": "hello wor', 6], ['{"a": 1, "note": "x\\u00', 17], ['{"a": 12', 6], ['[1, 2.', 4], ['{"n": 2e-', 6],
    ['{"a": "x", "b', 11], ['"a root string, cut', 0], ['Here it is:\n```json\n{"items": ["one", "tw', 38],
    ['{"a": tru', 6], ['{"a": 1, "b": ', 9], ['[1, 2,', 5], ['{"a": [', 7],
  ];
  for (const [text, position] of cut) {
    const r = repair(text);
    t.strictSame(r.metadata.warnings.map((w) => [w.code, w.position]), [['TRUNCATED_OUTPUT', position]], JSON.stringify(text));
    t.equal(r.metadata.confidence, 'medium', JSON.stringify(text));
    const stream = createStream();
    stream.push(text.slice(0, 5));
    stream.push(text.slice(5));
    t.strictSame(stream.finalize().metadata.warnings.map((w) => w.code), ['TRUNCATED_OUTPUT'], `streamed ${JSON.stringify(text)}`);
  }
  // Cut right after a complete value, or a whole scalar answer: only closers are missing.
  for (const text of ['{"a": "x"', '{"a": 12 ', '{"a": [1, 2]', '{"a": true', '42', '"done"']) {
    t.strictSame(repair(text).metadata.warnings, [], JSON.stringify(text));
  }
});

t.test('valid JSON comes back unchanged, high, with no repairs', async (t) => {
  for (const text of ['{"a":[1,2,{"b":null}],"c":"d"}', '[]', '0', '"x"', 'true', ' {"a": 1} ', '{"__proto__": {"x": 1}}',
    '{"page": "one\\f\\ntwo", "b": "\\\\beta", "c": "\\b1"}']) {
    const r = repair(text);
    t.same(r.repaired, JSON.parse(text));
    t.match(r.metadata, { confidence: 'high', was_repaired: false, output_valid_json: true, syntax_repairs: [], schema_repairs: [], repairs_applied: [], warnings: [], errors: [] });
  }
});

t.test('no JSON at all is UNRECOVERABLE_SYNTAX_ERROR', async (t) => {
  for (const text of ['', '   ', 'I could not find any data for that request.', 'hello world',
    'Use the {name} placeholder.', 'Fill in {first_name} and { last.name } here.',
    '<think>The user wants {"a": 1} here', '<think>Let me see', 'Note:\n"Note": this is important.']) {
    const r = repair(text);
    t.equal(r.success, false);
    t.equal(r.repaired, null);
    t.match(r.metadata, { confidence: 'low', was_repaired: false, output_valid_json: false });
    t.match(r.metadata.errors[0], { code: 'UNRECOVERABLE_SYNTAX_ERROR', severity: 'critical', recoverable: false });
  }
});

t.test('__proto__ and constructor in input are plain data', async (t) => {
  const r = repair("{__proto__: {polluted: 1}, 'constructor': {'prototype': 2}");
  const v = r.repaired as Record<string, unknown>;
  t.equal(Object.getPrototypeOf(v), Object.prototype);
  t.same(Object.keys(v), ['__proto__', 'constructor']);
  t.equal(({} as Record<string, unknown>).polluted, undefined);
});

t.test('deep nesting never overflows; past the limit it is refused', async (t) => {
  const deep = repair('['.repeat(900));
  t.equal(deep.success, true);
  t.doesNotThrow(() => JSON.stringify(deep.repaired));
  const tooDeep = repair('['.repeat(5 * 1024 * 1024));
  t.equal(tooDeep.success, false);
  t.match(tooDeep.metadata.errors[0]!.message, /deeper than 1000/);
});

t.test('repairing the output again changes nothing', async (t) => {
  for (const [input] of rows) {
    const first = repair(input);
    const again = repair(JSON.stringify(first.repaired));
    t.equal(again.metadata.was_repaired, false, JSON.stringify(input));
    t.same(again.repaired, first.repaired);
  }
});

t.test('in an escaped document, positions point into the input as sent', async (t) => {
  const input = 'Data: {\\"a\\": NaN, \\"b\\": 2,}';
  const r = repair(input);
  t.same(r.repaired, { a: null, b: 2 });
  const at = (type: string): number => r.metadata.syntax_repairs.find((d) => d.type === type)!.position!;
  t.equal(at('unescaped_json_text'), input.indexOf('\\"a'));
  t.equal(at('stripped_leading_text'), 0);
  t.equal(at('replaced_nan'), input.indexOf('NaN'));
  t.equal(at('removed_trailing_comma'), input.lastIndexOf(','));
  t.equal(r.metadata.warnings[0]!.position, input.indexOf('NaN'));
});

t.test('escaped quotes inside ordinary strings do not make a document escaped', async (t) => {
  for (const input of ['{"a": "say \\"hi\\"", b: 1', '["\\"quoted\\"", 2,]', '{"x": {\\"y\\": 1}}']) {
    const r = repair(input);
    t.notOk(r.metadata.syntax_repairs.some((d) => d.type === 'unescaped_json_text'), input);
  }
});

t.test('a failed JSON.parse attempt leaves Error.stackTraceLimit as the caller set it', async (t) => {
  const before = Error.stackTraceLimit;
  try {
    Error.stackTraceLimit = 7;
    t.same(repair('{a: 1}').repaired, { a: 1 });
    t.same(repair('[1, 2]').repaired, [1, 2]);
    t.equal(Error.stackTraceLimit, 7);
  } finally {
    Error.stackTraceLimit = before;
  }
});
