import { describe, expect, it } from 'vitest';
import { errorFromBody } from './api';
import { MAX_ATTACHMENT_BYTES, uploadHeaders, uploadProblem } from './upload';

describe('upload', () => {
  it('refuses a file over the limit or without a usable name before sending', () => {
    expect(uploadProblem({ name: 'a.txt', size: 3, type: 'text/plain' })).toBeNull();
    expect(uploadProblem({ name: 'big.bin', size: MAX_ATTACHMENT_BYTES + 1, type: '' })).toMatch(/25 MiB/);
    expect(uploadProblem({ name: '..', size: 1, type: '' })).toMatch(/not a usable file name/);
  });

  it('sends the name percent-encoded and a plain content type only', () => {
    expect(uploadHeaders({ name: 'résumé 1.pdf', size: 1, type: 'application/pdf' })).toMatchObject({
      'X-Agentry-Attachment-Name': 'r%C3%A9sum%C3%A9%201.pdf',
      'Content-Type': 'application/pdf',
    });
    expect(uploadHeaders({ name: 'x', size: 1, type: '' })['Content-Type']).toBe('application/octet-stream');
    expect(uploadHeaders({ name: 'x', size: 1, type: 'text/plain; charset=utf-8' })['Content-Type']).toBe('application/octet-stream');
  });

  it('reads the error envelope of a refused upload', () => {
    const e = errorFromBody(413, 'Payload Too Large', JSON.stringify({ error: { code: 'PAYLOAD_TOO_LARGE', message: 'over 25 MiB', details: { limit: 'file' } } }));
    expect([e.status, e.code, e.message, e.details]).toEqual([413, 'PAYLOAD_TOO_LARGE', 'over 25 MiB', { limit: 'file' }]);
    expect(errorFromBody(502, 'Bad Gateway', '<html>').message).toBe('502 Bad Gateway');
  });
});
