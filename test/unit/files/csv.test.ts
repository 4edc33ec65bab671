import assert from 'node:assert/strict';
import { test } from 'node:test';
import { csvRecord } from '../../../src/domain/files/csv.ts';

test('csv records: quoting per RFC 4180, numbers and booleans as they are, empty for null', () => {
  assert.equal(csvRecord(['plain', 'a,b', 'say "hi"', 'two\nlines', 'cr\r', 12, -0.5, true, null, '']), 'plain,"a,b","say ""hi""","two\nlines","cr\r",12,-0.5,true,,\r\n');
});

test('text a user wrote cannot start a spreadsheet formula; our own values keep their sign', () => {
  for (const start of ['=', '+', '-', '@', '\t', '\r']) {
    const field = csvRecord([{ text: `${start}SUM(A1:A9)` }]);
    assert.ok(field.startsWith(`'${start}`) || field.startsWith(`"'${start}`), JSON.stringify(field));
  }
  assert.equal(csvRecord([{ text: 'fine = fine' }]), 'fine = fine\r\n');
  assert.equal(csvRecord(['-1.5', { text: '-1.5' }]), "-1.5,'-1.5\r\n");
});
