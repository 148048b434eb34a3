// The prompt to trust a working directory's project (`.agentry/`) before its definitions
// may run programs, with what the listings skipped of its files.

import type { Project } from '../../lib/newRun';

export function ProjectTrust({ project, problems, onTrust }: { project: Project; problems: string[]; onTrust: () => void }) {
  return (
    <div class="notice" data-testid="project-trust" role="alert">
      <p>
        <strong>{project.projectDir}</strong> has a <code>.agentry/</code> you have not trusted. Until you do, its
        definitions may not run programs, read the daemon’s environment or replace yours of the same name. Read them
        first: trusted, they may do all of that, until any of its files changes.
      </p>
      {problems.length > 0 && (
        <ul class="small" data-testid="project-problems">
          {problems.slice(0, 8).map((p) => (
            <li>{p}</li>
          ))}
        </ul>
      )}
      <button type="button" data-testid="trust-project" onClick={onTrust}>
        Trust this project
      </button>
    </div>
  );
}
