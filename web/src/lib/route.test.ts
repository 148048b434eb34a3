import { describe, expect, it } from 'vitest';
import { basePathOf, parseRoute, runPath, stripBase, withBase } from './route';

describe('base path handling', () => {
  it('takes the base path from document.baseURI', () => {
    expect(basePathOf('http://127.0.0.1:4773/')).toBe('/');
    expect(basePathOf('http://h/agentry/')).toBe('/agentry/');
    expect(basePathOf('http://h/agentry/index.html')).toBe('/agentry/');
  });

  it('strips the base from a location', () => {
    expect(stripBase('/', '/')).toBe('/');
    expect(stripBase('/runs/abc/diff', '/')).toBe('/runs/abc/diff');
    expect(stripBase('/agentry/runs/abc', '/agentry/')).toBe('/runs/abc');
    expect(stripBase('/agentry', '/agentry/')).toBe('/');
    expect(stripBase('/agentry/', '/agentry/')).toBe('/');
    expect(stripBase('/agentry/new/', '/agentry/')).toBe('/new');
  });

  it('prefixes app paths with the base', () => {
    expect(withBase('/runs/x', '/')).toBe('/runs/x');
    expect(withBase('/runs/x', '/agentry/')).toBe('/agentry/runs/x');
    expect(withBase('/', '/agentry/')).toBe('/agentry/');
    expect(stripBase(withBase('/definitions', '/a/b/'), '/a/b/')).toBe('/definitions');
  });
});

describe('parseRoute', () => {
  it('knows every view and tab', () => {
    expect(parseRoute('/')).toEqual({ view: 'board' });
    expect(parseRoute('/runs/k3x9')).toEqual({ view: 'run', runId: 'k3x9', tab: 'timeline' });
    expect(parseRoute('/runs/k3x9/diff')).toEqual({ view: 'run', runId: 'k3x9', tab: 'diff' });
    expect(parseRoute('/new')).toEqual({ view: 'new' });
    expect(parseRoute('/definitions')).toEqual({ view: 'definitions' });
    expect(parseRoute('/system')).toEqual({ view: 'system' });
    expect(parseRoute('/members')).toEqual({ view: 'members' });
    expect(parseRoute('/members/x').view).toBe('notfound');
    expect(parseRoute('/runs/k3x9/bogus').view).toBe('notfound');
    expect(parseRoute('/elsewhere').view).toBe('notfound');
  });

  it('builds run paths', () => {
    expect(runPath('a1')).toBe('/runs/a1');
    expect(runPath('a1', 'timeline')).toBe('/runs/a1');
    expect(runPath('a1', 'files')).toBe('/runs/a1/files');
  });
});
