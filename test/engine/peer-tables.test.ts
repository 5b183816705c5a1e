// The peer comparison behind `npm run peers` (bench/engine/peer-tables.ts): how each case is judged,
// and that agreement with the peers' tables (test/fixtures/peer-cases/) stays at the targets.
import t from 'tap';
import { classifyDifference } from '../../bench/engine/peer-differences.js';
import { agreeOrDeliberate, loadPeerTables, PEER_CASES_DIR, runTable, type PeerTable } from '../../bench/engine/peer-tables.js';

t.test('each case is judged by value, and a peer that gives up is agreed with only by giving up', async (t) => {
  const table: PeerTable = {
    name: 'synthetic',
    file: '-',
    target: null,
    cases: [
      { input: '{"a":1,"b":[2]}', expected: { kind: 'value', value: { b: [2], a: 1 } }, note: 'same value, other key order' },
      { input: '{"a":1}', expected: { kind: 'value', value: { a: 2 } }, note: 'other value' },
      { input: '', expected: { kind: 'fails' }, note: 'both give up' },
      { input: '{"a":1}', expected: { kind: 'fails' }, note: 'peer gives up, we do not' },
      { input: '   ', expected: { kind: 'value', value: 1 }, note: 'we give up, peer does not' },
      { input: '""', expected: { kind: 'fails-or-empty-string' }, note: 'empty string reads as agreement' },
      { input: '[-0]', expected: { kind: 'value', value: [0] }, note: '-0 equals 0 as JSON' },
    ],
  };
  const result = runTable(table);
  t.same(result.results.map((r) => r.outcome), ['agree', 'differ', 'agree', 'we-repair', 'we-fail', 'agree', 'agree']);
  t.same(result.counts, { agree: 4, differ: 1, 'we-repair': 1, 'we-fail': 1, threw: 0 });
  t.equal(result.agreement, 4 / 7);
});

t.test('a deliberate difference excuses only its own kind of case', async (t) => {
  const repaired = (value: unknown, ...repairs: string[]) => ({ success: true as const, value, repairs });
  t.equal(classifyDifference('{"a":}', { kind: 'value', value: { a: null } }, repaired({}, 'removed_truncated_member')), 'valueless-member-dropped');
  t.equal(classifyDifference("{a 'b'}", { kind: 'value', value: { a: 'b' } }, repaired({}, 'removed_truncated_member')), null, 'a dropped real value is not excused');
  t.equal(classifyDifference('abc', { kind: 'value', value: 'abc' }, { success: false, errors: ['UNRECOVERABLE_SYNTAX_ERROR'] }), 'no-json-no-value');
  t.equal(classifyDifference('`foo´', { kind: 'value', value: 'foo' }, { success: false, errors: ['UNRECOVERABLE_SYNTAX_ERROR'] }), null, 'quoted text is not prose');
  t.equal(classifyDifference('"\\u26"', { kind: 'fails' }, repaired('', 'closed_string')), null, 'closing a string that had its quote is not excused');
  t.equal(classifyDifference('{"a":2}foo', { kind: 'fails' }, repaired({ a: 2 }, 'stripped_trailing_text')), 'repaired-where-peer-gives-up');
  t.equal(classifyDifference('"\\a"', { kind: 'value', value: 'a' }, repaired('\\a', 'escaped_backslash')), 'invalid-escape-keeps-backslash');
  t.equal(classifyDifference('"\\a"', { kind: 'value', value: 'b' }, repaired('\\a', 'escaped_backslash')), null);
});

t.test('agreement with the peers (plus documented deliberate differences) stays at the targets', async (t) => {
  const tables = loadPeerTables(PEER_CASES_DIR);
  t.same(tables.map((x) => x.cases.length), [430, 258, 322], 'all cases loaded');
  for (const table of tables.filter((x) => x.target !== null)) {
    const result = runTable(table);
    const judged = agreeOrDeliberate(result);
    t.equal(result.counts.threw, 0, `${table.name}: repair never throws`);
    t.ok(judged >= table.target!, `${table.name}: agree or deliberate ${(judged * 100).toFixed(1)}% >= ${table.target! * 100}%`);
  }
});
