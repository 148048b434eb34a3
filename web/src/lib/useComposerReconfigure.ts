// The composer's "reconfigure" section as state: the run's vars (their types from its
// assignment, loaded when the section opens), its message, its backend session id and
// whether to reset it first; and what of that a send carries (only what changed).

import { useEffect, useMemo, useState } from 'preact/hooks';
import { changedVars, currentVarInputs, NO_RECONFIGURE, type ReconfigureInput } from './composer';
import { loadAssignment } from './newRun';
import { useResource } from './resource';
import type { RunDetail } from './types';
import type { VarInputs, VarSpecs } from './vars';

export interface ComposerReconfigure {
  open: boolean;
  /** Opens the section, or closes it and drops its edits. */
  setOpen: (open: boolean) => void;
  specs: VarSpecs;
  specsError: unknown;
  specsLoading: boolean;
  vars: VarInputs;
  setVars: (v: VarInputs) => void;
  varErrors: Record<string, string>;
  setVarErrors: (e: Record<string, string>) => void;
  message: string;
  setMessage: (m: string) => void;
  backendSession: string;
  setBackendSession: (s: string) => void;
  resetFirst: boolean;
  setResetFirst: (r: boolean) => void;
  /** What a send carries (nothing while the section is closed), or the vars' errors. */
  collect: () => { input: ReconfigureInput; errors: Record<string, string> };
}

export function useComposerReconfigure(run: RunDetail): ComposerReconfigure {
  const [open, setOpen] = useState(false);
  const assignment = run.assignment;
  const res = useResource(open && assignment ? (signal) => loadAssignment(assignment, run.cwd, signal) : null, [open, assignment, run.cwd]);
  const specs = res.data?.vars ?? {};
  const initial = useMemo(() => currentVarInputs(specs, run.vars ?? {}), [res.data, run.vars]);
  const initialKey = JSON.stringify(initial);
  const [vars, setVars] = useState<VarInputs>(initial);
  const [varErrors, setVarErrors] = useState<Record<string, string>>({});
  // The run's own values are the form's starting point, again whenever they change (a
  // reconfigure answered, another member edited the run).
  useEffect(() => {
    setVars(initial);
    setVarErrors({});
  }, [initialKey]);
  const [message, setMessage] = useState(run.message ?? '');
  useEffect(() => setMessage(run.message ?? ''), [run.message]);
  const sessionNow = run.backendSession?.id ?? '';
  const [backendSession, setBackendSession] = useState(sessionNow);
  useEffect(() => setBackendSession(sessionNow), [sessionNow]);
  const [resetFirst, setResetFirst] = useState(false);
  useEffect(() => {
    if (!run.capabilities?.canReset) setResetFirst(false);
  }, [run.capabilities?.canReset]);

  // Closing the section drops its edits: what a send carries is what the open section shows.
  const openOrClose = (next: boolean) => {
    if (!next) {
      setVars(initial);
      setVarErrors({});
      setMessage(run.message ?? '');
      setBackendSession(sessionNow);
      setResetFirst(false);
    }
    setOpen(next);
  };

  const collect = () => {
    if (!open) return { input: NO_RECONFIGURE, errors: {} };
    const v = changedVars(specs, vars, initial);
    return {
      input: {
        vars: v.vars,
        message: message !== (run.message ?? '') ? message : null,
        backendSessionId: run.capabilities?.canSetBackendSession && backendSession !== sessionNow ? backendSession : null,
        resetFirst,
      },
      errors: v.errors,
    };
  };

  return {
    open,
    setOpen: openOrClose,
    specs,
    specsError: res.error,
    specsLoading: res.loading,
    vars,
    setVars,
    varErrors,
    setVarErrors,
    message,
    setMessage,
    backendSession,
    setBackendSession,
    resetFirst,
    setResetFirst,
    collect,
  };
}
