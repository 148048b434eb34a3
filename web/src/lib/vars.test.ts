import { describe, expect, it } from 'vitest';
import { checkRunForm, checkVars, type VarSpecs } from './vars';

const specs: VarSpecs = {
  feature: { type: 'string', required: true, sources: ['cli', 'web'] },
  scope: { type: 'enum', values: ['small', 'medium', 'large'], default: 'small', sources: ['cli', 'web'] },
  run_tests: { type: 'boolean', default: true, sources: ['cli', 'web', 'env'] },
  count: { type: 'number', sources: ['cli', 'web'] },
  token: { type: 'string', required: true, sources: ['env'] },
  note: {},
};

describe('checkVars', () => {
  it('requires a required var the caller alone can give', () => {
    const r = checkVars(specs, {});
    expect(Object.keys(r.errors)).toEqual(['feature']);
  });

  it('types values as the daemon expects from a web caller', () => {
    const r = checkVars(specs, { feature: 'dark mode', scope: 'large', run_tests: 'false', count: '2.5', note: ' x ' });
    expect(r.errors).toEqual({});
    expect(r.values).toEqual({ feature: 'dark mode', scope: 'large', run_tests: false, count: 2.5, note: ' x ' });
  });

  it('refuses a wrong enum value, a non-number, a non-boolean', () => {
    const r = checkVars(specs, { feature: 'f', scope: 'huge', count: '12abc', run_tests: 'maybe' });
    expect(Object.keys(r.errors).sort()).toEqual(['count', 'run_tests', 'scope']);
    expect(r.errors.scope).toContain('small, medium, large');
  });

  it('refuses a value for a var whose sources leave out web, and unknown vars', () => {
    const r = checkVars(specs, { feature: 'f', token: 'secret', bogus: 'x' });
    expect(Object.keys(r.errors).sort()).toEqual(['bogus', 'token']);
  });

  it('leaves unset optional vars out of the values', () => {
    const r = checkVars(specs, { feature: 'f', count: '  ', scope: '' });
    expect(r.values).toEqual({ feature: 'f' });
  });
});

describe('checkRunForm', () => {
  it('needs an agent, and a message without an assignment', () => {
    expect(checkRunForm({ agent: '', assignment: '', message: '', timeoutSec: '', cwd: '/w' })).toHaveLength(2);
    expect(checkRunForm({ agent: 'a', assignment: 'x', message: '', timeoutSec: '0', cwd: '/w' })).toEqual([]);
    expect(checkRunForm({ agent: 'a', assignment: '', message: 'hi', timeoutSec: '-1', cwd: '/w' })).toHaveLength(1);
  });

  it('needs an absolute working directory unless the assignment has one', () => {
    expect(checkRunForm({ agent: 'a', assignment: '', message: 'hi', timeoutSec: '' })).toHaveLength(1);
    expect(checkRunForm({ agent: 'a', assignment: '', message: 'hi', timeoutSec: '', cwd: 'rel/dir' })).toHaveLength(1);
    expect(checkRunForm({ agent: 'a', assignment: 'x', message: '', timeoutSec: '', assignmentCwd: '/repo' })).toEqual([]);
  });
});
