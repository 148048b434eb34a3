// Definitions (agents, assignments, launchers, environments, task definitions), each kind
// with its load warnings (DefinitionKind).

import { DefinitionKind } from './DefinitionKind';

/** [label, API route, the answer's list key, one entry's key]. */
const KINDS: Array<[string, string, string, string]> = [
  ['agents', 'api/agents', 'agents', 'agent'],
  ['assignments', 'api/assignments', 'assignments', 'assignment'],
  ['launchers', 'api/launchers', 'launchers', 'launcher'],
  ['environments', 'api/environments', 'environments', 'environment'],
  ['task definitions', 'api/task-definitions', 'taskDefinitions', 'taskDefinition'],
];

export function Definitions() {
  return (
    <section class="pad definitions" data-testid="definitions">
      <h1>Definitions</h1>
      {KINDS.map(([label, path, listKey, key1]) => (
        <DefinitionKind label={label} path={path} listKey={listKey} key1={key1} />
      ))}
    </section>
  );
}
