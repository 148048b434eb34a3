import { describe, expect, it } from 'vitest';
import { cwdQuery, EMPTY_FIELDS, initialVars, projectProblems, runRequestBody } from './newRun';
import type { VarSpecs } from './vars';

describe('cwdQuery', () => {
  it('names an absolute working directory only', () => {
    expect(cwdQuery(' /w/my app ')).toBe('?cwd=%2Fw%2Fmy%20app');
    expect(cwdQuery('relative')).toBe('');
    expect(cwdQuery('')).toBe('');
  });
});

describe('projectProblems', () => {
  it('keeps the warnings about the project’s own files, relative to it', () => {
    const lists = [
      { warnings: [{ path: '/p/.agentry/agents/a.yaml', field: 'backend', message: 'unknown' }] },
      { warnings: [{ path: '/home/me/.config/agentry/x.yaml', message: 'elsewhere' }] },
      undefined,
      { warnings: [{ path: '/p/.agentry/launchers/l.yaml', message: 'shadowed' }] },
    ];
    expect(projectProblems('/p', lists)).toEqual(['.agentry/agents/a.yaml: backend: unknown', '.agentry/launchers/l.yaml: shadowed']);
    expect(projectProblems(undefined, lists)).toEqual([]);
  });
});

const specs: VarSpecs = {
  scope: { type: 'enum', values: ['small', 'large'], default: 'small', sources: ['cli', 'web'] },
  secret: { type: 'string', default: 'x', sources: ['env'] },
  count: { type: 'number' },
};

describe('initialVars', () => {
  it('prefills the defaults the web may set, nothing else', () => {
    expect(initialVars(specs)).toEqual({ scope: 'small', secret: '', count: '' });
  });
});

describe('runRequestBody', () => {
  it('sends only what was given, and a var only when it differs from its default', () => {
    const f = { ...EMPTY_FIELDS, cwd: ' /w ', message: 'go', timeoutSec: '30', name: ' n ' };
    expect(runRequestBody('demo', 'fix', f, { scope: 'small', count: 2 }, specs, { scope: 'small', count: '2' })).toEqual({
      agent: 'demo',
      definitionCwd: '/w',
      assignment: 'fix',
      name: 'n',
      webVars: { count: 2 },
      overrides: { message: 'go', cwd: '/w', timeoutSec: 30 },
    });
  });

  it('is the agent alone when nothing else is set', () => {
    expect(runRequestBody('demo', '', EMPTY_FIELDS, {}, {}, {})).toEqual({ agent: 'demo' });
  });
});
