// Generated from docs/openapi.yaml by web/scripts/gen-types.mjs (npm run gen:types).
// Do not edit: change the document and regenerate. web/src/lib/types.ts names what the
// dashboard uses.

export type Error = {
  error: {
    code: "INVALID_REQUEST" | "UNAUTHENTICATED" | "FORBIDDEN" | "NOT_FOUND" | "METHOD_NOT_ALLOWED" | "CONFLICT" | "PAYLOAD_TOO_LARGE" | "VALIDATION_FAILED" | "INTERNAL" | "UNAVAILABLE";
    message: string;
    /** what the refusal concerns (field, parameter, runId, reason, ...); {} when nothing */
    details: Record<string, unknown>;
  };
};

/** ISO 8601 UTC with milliseconds, 2026-01-02T03:04:05.678Z */
export type Timestamp = string;

export type RunStatus = "initialized" | "ready" | "running" | "success" | "blocked" | "exhausted" | "aborted" | "error";

export type TaskStatus = "pending" | "in_progress" | "completed" | "blocked";

export type DaemonInfo = {
  daemonInstanceId: string;
  pid: number;
  listenUrl: string;
  socketUrl: string | null;
  version: string;
  startedAt: Timestamp;
};

export type Member = {
  daemonId: string;
  name: string;
  host: string;
  pid: number;
  advertiseUrl: string;
  labels: Array<string>;
  /** live runs it takes at most; null: no limit */
  capacity: number | null;
  /** [] for any directory */
  workspaceRoots: Array<string>;
  liveRuns: number;
  version: string;
  startedAt: Timestamp;
  heartbeatAt: Timestamp;
  /** aged by the database's clock */
  heartbeatAgeMs: number;
  state: "alive" | "suspect" | "dead";
  /** the daemon that answered */
  self: boolean;
};

export type Backend = {
  id: string;
  name: string;
  vendor: string;
  version: string;
  description: string;
  features: Array<string>;
  /** the plugin's library; null for the built-in passive backend */
  path: string | null;
  abiVersion: string | null;
};

export type TokenCounts = {
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
  reasoningTokens: number;
};

export type ModelUsage = TokenCounts & {
  model: string | null;
  /** null when the model has no price */
  costUsd: number | null;
};

export type Usage = TokenCounts & {
  /** null when a model has no price */
  costUsd: number | null;
  models: Array<ModelUsage>;
  warnings?: Array<string>;
};

export type UsageSummary = {
  by: "agent" | "day" | "group" | "run" | "session";
  since: string | null;
  until: string | null;
  entries: Array<Usage & {
    key: string;
  }>;
  total: Usage;
  warnings: Array<string>;
};

/** docs/api.md#runstartrequest */
export type RunStartRequest = {
  /** runs.init only: re-initializes that run */
  runId?: string;
  agent?: string;
  assignment?: string;
  definitionCwd?: string;
  callerCwd?: string;
  parentRunId?: string;
  runGroupId?: string;
  notifyParentOnComplete?: boolean;
  inheritRunGroup?: boolean;
  backendSessionId?: string;
  name?: string;
  budget?: Record<string, unknown>;
  cliVars?: Record<string, unknown>;
  webVars?: Record<string, unknown>;
  overrides?: {
    message?: string;
    cwd?: string;
    model?: string;
    effort?: string;
    timeoutSec?: number;
    maxRetries?: number;
    backendConfig?: Record<string, unknown>;
    launcher?: string;
    environment?: string;
    backend?: string;
    unrestricted?: boolean;
  };
  dependencies?: Array<DependencyTarget>;
  notify?: Array<Record<string, unknown>>;
  placement?: {
    labels?: Array<string>;
  };
};

export type DependencyTarget = {
  type: "run";
  runId: string;
} | {
  type: "group";
  groupId: string;
};

/** exactly one of at, delay, cron (docs/api.md#schedules) */
export type ScheduleRequest = {
  at?: string;
  delay?: string;
  cron?: string;
  timezone?: string;
  mode?: "reuse" | "reset" | "clone";
  continueOnFailure?: boolean;
};

export type RunAnswer = {
  run: RunDetail;
  runId: string;
};

export type Capabilities = {
  canArchive: boolean;
  canUnarchive: boolean;
  canReset: boolean;
  canDelete: boolean;
  canReady: boolean;
  canResume: boolean;
  canAbort: boolean;
  abortReason: string | null;
  canReconfigure: boolean;
  reconfigureReason: string | null;
  canSetBackendSession: boolean;
  canQueueMessage: boolean;
  canRemoveQueuedMessage: boolean;
  canEditDependencies: boolean;
  taskMutation: {
    canSetStatus: boolean;
    canSetNotes: boolean;
    canAppendNotes: boolean;
    canAdd: boolean;
    canEditPending: boolean;
    canDeletePending: boolean;
  };
};

export type TaskCounts = {
  total: number;
  pending: number;
  inProgress: number;
  completed: number;
  blocked: number;
};

export type SessionSummary = {
  index: number;
  status: string;
  startedAt: Timestamp;
  endedAt: string | null;
  endReason: string | null;
  backendSessionId: string | null;
  firstAttemptNumber: number | null;
  lastAttemptNumber: number | null;
  attemptCount: number;
};

export type DependencyState = {
  state: "none" | "waiting" | "satisfied";
  total: number;
  satisfied: number;
};

export type Schedule = {
  kind: "once" | "recurring";
  at?: string | null;
  delay?: string;
  cron?: string;
  timezone?: string;
  mode?: "reuse" | "reset" | "clone";
  continueOnFailure?: boolean;
  enabled: boolean;
  nextAt: string | null;
  lastAt: string | null;
  lastOutcome: "started" | "skipped" | "missed" | "disabled" | null;
  lastReason: string | null;
  lastRunId: string | null;
  updatedAt: Timestamp;
};

export type ScheduleState = {
  state: "scheduled" | "blocked" | "disabled" | "done";
  reason: string | null;
  nextAt: string | null;
};

export type Diffstat = {
  files: number;
  additions: number;
  deletions: number;
  updatedAt: Timestamp;
};

export type RunSummary = {
  runId: string;
  name: string | null;
  status: RunStatus;
  statusReason: string | null;
  agent: string;
  assignment: string | null;
  backend: string;
  model: string | null;
  cwd: string;
  /** the git work tree the cwd is in */
  repo: string | null;
  runGroupId: string;
  parentRunId: string | null;
  pinned: boolean;
  notePresent: boolean;
  archived: boolean;
  archivedAt: string | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
  startedAt: string | null;
  finishedAt: string | null;
  backendSessionId: string | null;
  taskCounts: TaskCounts;
  activeTask: {
    id: string;
    title: string;
  } | null;
  totalAttemptCount: number;
  totalSessionCount: number;
  maxAttemptsPerSession: number;
  queuedMessageCount: number;
  attachmentCount: number;
  /** questions the agent waits on an answer to (RunDetail.pendingApprovals) */
  pendingApprovalCount: number;
  currentSession: SessionSummary | null;
  lastSession: SessionSummary | null;
  dependencyState: DependencyState;
  hookCount: number;
  diffstat: Diffstat | null;
  schedule: Schedule | null;
  scheduleState: ScheduleState | null;
  /** +1 on every change of the run or its tasks */
  revision: number;
  usage: Usage;
  damaged?: {
    reason: string;
  };
  capabilities: Capabilities;
};

export type RunDetail = RunSummary & {
  note: string | null;
  message: string;
  brief: string;
  /** resolved vars; values read from the environment are redacted */
  vars: Record<string, unknown>;
  runtimeVars: Record<string, unknown>;
  lockedFields: Array<string>;
  callerInstructions: string | null;
  frozen: FrozenInputs;
  environment: {
    name: string;
    kind: string;
    network: string;
  } | null;
  tasks: Array<Task>;
  sessions: Array<Session>;
  backendSession: {
    id: string;
  } | null;
  dependencies: Array<Dependency>;
  dependents: Array<Dependent>;
  attachments: Array<Attachment>;
  queuedResumeMessages: Array<QueuedMessage>;
  pendingApprovals: Array<PendingApproval>;
  owner: {
    daemonId: string;
    name: string;
    epoch: number;
    leaseExpiresAt: Timestamp;
  } | null;
  notifyParentOnComplete: boolean;
  resolvedHooks: Array<Record<string, unknown>>;
  hooksNotImported?: Array<string>;
  hookState: Record<string, {
    lastOutcome: string;
    lastMessage: string | null;
    lastPhase: string;
    lastRunAt: Timestamp;
    runs: number;
  }>;
  hookAudits: Array<Record<string, unknown>>;
  hookData: Record<string, unknown>;
  parentNotification: {
    parentRunId: string;
    sessionIndex: number;
    state: string;
    reason: string | null;
    delivery: string | null;
    createdAt: Timestamp;
    updatedAt: Timestamp;
    deliveredAt: string | null;
  } | null;
  notifications: Array<Notification>;
};

export type FrozenInputs = {
  agentSourcePath: string;
  assignmentSourcePath: string | null;
  effort: string | null;
  timeoutSec: number;
  budget: Record<string, unknown> | null;
  unrestricted: boolean;
  backendConfig: Record<string, unknown>;
  extraArgs: Array<string>;
  launcher: {
    name: string;
    command: Array<string>;
    env: Record<string, string>;
  } | null;
  notify: Array<{
    kind: "webhook" | "command";
    /** redacted */
    target: string;
    events: Array<string>;
    signed: boolean;
    origin: string;
  }>;
};

export type Session = SessionSummary & {
  endedBy: "agent" | "tasks" | "user" | "shutdown" | "restart" | null;
  prompt: string;
  /** what opened it when the daemon did on its own */
  source?: unknown;
  attempts: Array<Attempt>;
};

export type Attempt = {
  attemptNumber: number;
  sessionIndex: number;
  attemptIndexInSession: number;
  startedAt: Timestamp;
  endedAt: string | null;
  outcome: string | null;
};

export type Dependency = {
  type: "run";
  runId: string;
  satisfied: boolean;
  missing: boolean;
  status: RunStatus | null;
  createdAt: Timestamp;
} | {
  type: "group";
  groupId: string;
  satisfied: boolean;
  missing: boolean;
  members: number;
  succeeded: number;
  archivedExcluded: number;
  createdAt: Timestamp;
};

export type Dependent = {
  runId: string;
  status: RunStatus;
  type: "run" | "group";
  groupId?: string;
};

export type Notification = {
  id: string;
  event: string;
  target: string;
  idempotencyKey: string;
  state: string;
  attempts: number;
  lastError: string | null;
  createdAt: Timestamp;
  deliveredAt: string | null;
  nextAttemptAt?: string;
};

export type Task = {
  runId: string;
  id: string;
  title: string;
  body: string;
  status: TaskStatus;
  notes: string;
  /** inline, definition:<id>, file:<path> or added */
  source: string;
  position: number;
  createdAt: Timestamp;
  updatedAt: Timestamp;
};

export type QueuedMessage = {
  id: string;
  runId: string;
  text: string;
  createdAt: Timestamp;
  /** who queued it, or the child run whose completion it reports (docs/api.md#parent-completion) */
  source: {
    actor: string;
  } | {
    kind: "child_completion";
    childRunId: string;
    childSessionIndex: number;
    childSessionStartedAt: Timestamp;
  };
};

export type PendingApproval = {
  approvalId: string;
  kind: string;
  summary: string;
  /** what the backend sent with the question */
  details: unknown;
  requestedAt: Timestamp;
};

export type Attachment = {
  attachmentId: string;
  runId: string;
  runGroupId: string;
  name: string;
  size: number;
  sha256: string;
  contentType: string;
  createdAt: Timestamp;
};

/** a frame's data on GET /api/events/run-summaries */
export type SummaryStreamEvent = {
  type: "summary_upsert";
  summary: RunSummary;
} | {
  type: "summary_removed";
  runId: string;
};

/** a frame's data on GET /api/runs/{runId}/events/detail */
export type DetailStreamEvent = {
  type: "run_detail";
  run: RunDetail;
} | RunRemovedEvent;

export type RunRemovedEvent = {
  type: "run_removed";
  runId: string;
};

/** a frame's data on GET /api/runs/{runId}/events/browser */
export type BrowserStreamEvent = {
  type: "browser_frame";
  runId: string;
  seq: number;
  at: Timestamp;
  mime: "image/jpeg" | "image/png";
  /** the image, base64 */
  data: string;
  width?: number;
  height?: number;
  url?: string;
} | {
  type: "browser_unavailable";
  runId: string;
  seq: number;
  at?: Timestamp;
  reason: string;
} | RunRemovedEvent;

export type AuditEvent = {
  runId: string;
  cursor: number;
  type: string;
  actor: string;
  at: Timestamp;
  data: Record<string, unknown>;
};

export type TimelineEvent = {
  runId: string;
  /** null for an ephemeral event on the stream */
  cursor: number | null;
  kind: string;
  attemptNumber: number | null;
  at: Timestamp;
  payload: Record<string, unknown>;
  ephemeral?: boolean;
  conflated?: boolean;
};

export type FileEntry = {
  name: string;
  path: string;
  type: "file" | "directory" | "symlink" | "other";
  /** files only */
  size: number | null;
  modifiedAt: string | null;
};

export type DiffFile = {
  path: string;
  oldPath: string | null;
  status: "added" | "deleted" | "modified" | "renamed" | "copied" | "untracked" | "typechange" | "conflicted" | "unreadable";
  additions: number | null;
  deletions: number | null;
  binary: boolean;
  omittedReason: "hardlink" | "outside" | null;
};

export type NamedRef = {
  name: string;
  commit: string | null;
};

export type WorkspaceRefs = {
  runId: string;
  repoRoot: string;
  head: {
    branch: string | null;
    commit: string | null;
  };
  branches: Array<NamedRef>;
  remotes: Array<NamedRef>;
  tags: Array<NamedRef>;
  truncated: boolean;
};

export type WorkspaceDiff = {
  runId: string;
  mode: "working-tree" | "branch" | "run";
  repoRoot: string;
  base: {
    ref: string;
    commit: string | null;
  };
  head: {
    ref: string | null;
    commit: string | null;
    workTree?: boolean;
  };
  mergeBase: string | null;
  files: Array<DiffFile>;
  patch: string;
  stats: {
    files: number;
    additions: number;
    deletions: number;
  };
  truncated: boolean;
  truncatedReason: "patch_bytes" | "files" | "deadline" | null;
};

export type DefinitionProblem = {
  path?: string;
  field: string;
  message: string;
};

export type DefinitionList = {
  kind: "agent" | "assignment" | "launcher" | "environment" | "task";
  entries: Array<{
    name: string;
    sourcePath: string;
    description: string;
    [key: string]: unknown;
  }>;
  warnings: Array<DefinitionProblem>;
};

/** { kind, <kind>: { ...fields, instructions }, sourcePath, warnings } */
export type DefinitionDetail = {
  kind: "agent" | "assignment" | "launcher" | "environment" | "task";
  sourcePath: string;
  warnings: Array<DefinitionProblem>;
};

/** the definition file's fields as loaded (docs/definitions.md) */
export type DefinitionFields = Record<string, unknown>;

export type ProjectRef = {
  projectDir: string;
  trusted: boolean;
};

export type ProjectTrust = {
  projectDir: string;
  trusted: boolean;
  /** trusted once, but its files differ now */
  changed: boolean;
  digest: string | null;
  trustedAt: string | null;
  trustedBy: string | null;
  trustedDigest: string | null;
  /** why the files cannot be digested */
  problem?: string;
};

export type Container = {
  name: string;
  id: string;
  engine: string;
  environment: string | null;
  lifetime: string | null;
  runId: string | null;
  groupId: string | null;
  cleanup: string | null;
  workspace: string | null;
  status: string;
  running: boolean;
  usedBy: Array<string>;
};

export type Trigger = {
  name: string;
  description: string;
  path: string;
  assignment: string;
  agent: string;
  scheme: "agentry" | "github";
  secretEnv: string;
  secretSet: boolean;
  dedupKey: string;
  replayWindowSeconds?: number;
  cwd?: string;
  vars: Record<string, unknown>;
  filter: Record<string, unknown>;
  warnings: Array<DefinitionProblem>;
};

export interface OperationAnswers {
  /** GET /app-config.json */
  "appConfig.get": {
    webBasePath: string;
  };
  /** GET /api/openapi.json */
  "openapi.get": {
    openapi: string;
    info: Record<string, unknown>;
    paths: Record<string, unknown>;
    components: Record<string, unknown>;
    [key: string]: unknown;
  };
  /** GET /api/daemon */
  "daemon.info": {
    daemon: DaemonInfo;
  };
  /** GET /api/daemons */
  "daemons.list": {
    daemons: Array<Member>;
  };
  /** GET /api/backends */
  "backends.list": {
    backends: Array<Backend>;
    loadErrors: Array<{
      path: string;
      message: string;
      details?: Record<string, unknown>;
    }>;
  };
  /** GET /api/usage */
  "usage.summary": UsageSummary;
  /** GET /api/runs */
  "runs.list": {
    runs: Array<RunSummary>;
    nextCursor: string | null;
  };
  /** POST /api/runs */
  "runs.start": RunAnswer;
  /** POST /api/runs/init */
  "runs.init": RunAnswer;
  /** GET /api/runs/{runId} */
  "runs.get": RunAnswer;
  /** DELETE /api/runs/{runId} */
  "runs.delete": {
    result: {
      runId: string;
      deleted: true;
    };
  };
  /** GET /api/runs/{runId}/brief */
  "runs.brief": {
    runId: string;
    brief: string;
  };
  /** POST /api/runs/{runId}/ready */
  "runs.ready": RunAnswer;
  /** POST /api/runs/{runId}/resume */
  "runs.resume": RunAnswer;
  /** POST /api/runs/{runId}/abort */
  "runs.abort": {
    run: RunDetail;
    runId: string;
    accepted: true;
  };
  /** POST /api/runs/{runId}/ask */
  "runs.ask": {
    askId: string;
    runId: string;
    backend: string;
    question: string;
    answer: string;
    durationMs: number;
    usage?: Record<string, unknown>;
  };
  /** POST /api/runs/{runId}/archive */
  "runs.archive": RunAnswer;
  /** POST /api/runs/{runId}/unarchive */
  "runs.unarchive": RunAnswer;
  /** POST /api/runs/{runId}/reset */
  "runs.reset": RunAnswer;
  /** POST /api/runs/{runId}/reconfigure */
  "runs.reconfigure": RunAnswer;
  /** POST /api/runs/{runId}/name */
  "runs.setName": RunAnswer;
  /** POST /api/runs/{runId}/note */
  "runs.setNote": RunAnswer;
  /** POST /api/runs/{runId}/pinned */
  "runs.setPinned": RunAnswer;
  /** POST /api/runs/{runId}/backend-session */
  "runs.setBackendSession": RunAnswer;
  /** POST /api/runs/{runId}/backend-session/clear */
  "runs.clearBackendSession": RunAnswer;
  /** POST /api/runs/{runId}/group */
  "runs.setGroup": RunAnswer;
  /** POST /api/runs/{runId}/group/clear */
  "runs.clearGroup": RunAnswer;
  /** POST /api/runs/{runId}/dependencies */
  "runs.addDependency": RunAnswer;
  /** DELETE /api/runs/{runId}/dependencies */
  "runs.removeDependency": RunAnswer;
  /** POST /api/runs/{runId}/dependencies/clear */
  "runs.clearDependencies": RunAnswer;
  /** PUT /api/runs/{runId}/schedule */
  "runs.setSchedule": RunAnswer;
  /** DELETE /api/runs/{runId}/schedule */
  "runs.clearSchedule": RunAnswer;
  /** POST /api/runs/{runId}/schedule/enable */
  "runs.enableSchedule": RunAnswer;
  /** POST /api/runs/{runId}/schedule/disable */
  "runs.disableSchedule": RunAnswer;
  /** GET /api/runs/{runId}/queued-resume-messages */
  "runs.listQueuedResumeMessages": {
    runId: string;
    messages: Array<QueuedMessage>;
  };
  /** POST /api/runs/{runId}/queued-resume-messages */
  "runs.queueResumeMessage": {
    message: QueuedMessage;
    run: RunDetail;
  };
  /** DELETE /api/runs/{runId}/queued-resume-messages/{messageId} */
  "runs.removeQueuedResumeMessage": {
    result: {
      runId: string;
      messageId: string;
      deleted: true;
    };
  };
  /** POST /api/runs/{runId}/approvals/{approvalId} */
  "runs.answerApproval": {
    result: {
      runId: string;
      approvalId: string;
      decision: "approve" | "deny";
    };
    accepted: true;
  };
  /** GET /api/runs/{runId}/tasks */
  "tasks.list": {
    runId: string;
    tasks: Array<Task>;
  };
  /** POST /api/runs/{runId}/tasks */
  "tasks.add": {
    task: Task;
  };
  /** GET /api/runs/{runId}/tasks/{taskId} */
  "tasks.get": {
    task: Task;
  };
  /** PATCH /api/runs/{runId}/tasks/{taskId} */
  "tasks.set": {
    task: Task;
  };
  /** DELETE /api/runs/{runId}/tasks/{taskId} */
  "tasks.delete": {
    result: {
      runId: string;
      taskId: string;
      deleted: boolean;
      updatedAt: Timestamp;
    };
  };
  /** POST /api/runs/{runId}/tasks/{taskId}/append-notes */
  "tasks.appendNotes": {
    task: Task;
  };
  /** GET /api/runs/{runId}/audit */
  "runs.auditHistory": {
    runId: string;
    events: Array<AuditEvent>;
    firstCursor: number | null;
    lastCursor: number;
  };
  /** GET /api/runs/{runId}/timeline */
  "runs.timelineHistory": {
    runId: string;
    attempts: Array<Attempt>;
    events: Array<TimelineEvent>;
    firstCursor: number | null;
    lastCursor: number;
  };
  /** GET /api/runs/{runId}/workspace/files */
  "workspace.files": {
    runId: string;
    cwd: string;
    path: string;
    entries: Array<FileEntry>;
    truncated: boolean;
  };
  /** GET /api/runs/{runId}/workspace/search */
  "workspace.search": {
    runId: string;
    query: string;
    results: Array<FileEntry>;
    truncated: boolean;
    truncatedReason: "limit" | "visited" | "deadline" | null;
  };
  /** GET /api/runs/{runId}/workspace/file */
  "workspace.file": {
    runId: string;
    path: string;
    size: number;
    encoding: "utf-8";
    modifiedAt: Timestamp;
    content: string;
  };
  /** GET /api/runs/{runId}/workspace/diff */
  "workspace.diff": WorkspaceDiff;
  /** GET /api/runs/{runId}/workspace/refs */
  "workspace.refs": WorkspaceRefs;
  /** GET /api/runs/{runId}/attachments */
  "attachments.list": {
    attachments: Array<Attachment>;
  };
  /** POST /api/runs/{runId}/attachments */
  "attachments.add": {
    attachment: Attachment;
  };
  /** DELETE /api/runs/{runId}/attachments/{attachmentId} */
  "attachments.remove": {
    removed: true;
    attachment: Attachment;
  };
  /** GET /api/agents */
  "agents.list": {
    agents: DefinitionList;
    project?: ProjectRef;
  };
  /** GET /api/agents/{target} */
  "agents.get": {
    agent: DefinitionDetail & {
      agent: DefinitionFields;
    };
  };
  /** GET /api/assignments */
  "assignments.list": {
    assignments: DefinitionList;
    project?: ProjectRef;
  };
  /** GET /api/assignments/{target} */
  "assignments.get": {
    assignment: DefinitionDetail & {
      assignment: DefinitionFields;
    };
  };
  /** GET /api/launchers */
  "launchers.list": {
    launchers: DefinitionList;
    project?: ProjectRef;
  };
  /** GET /api/launchers/{target} */
  "launchers.get": {
    launcher: DefinitionDetail & {
      launcher: DefinitionFields;
    };
  };
  /** GET /api/environments */
  "environments.list": {
    environments: DefinitionList;
    project?: ProjectRef;
  };
  /** GET /api/environments/{target} */
  "environments.get": {
    environment: DefinitionDetail & {
      environment: DefinitionFields;
    };
  };
  /** GET /api/task-definitions */
  "taskDefinitions.list": {
    taskDefinitions: DefinitionList;
    project?: ProjectRef;
  };
  /** GET /api/task-definitions/{target} */
  "taskDefinitions.get": {
    taskDefinition: DefinitionDetail & {
      task: DefinitionFields;
    };
  };
  /** GET /api/containers */
  "environments.status": {
    containers: Array<Container>;
    errors: Array<string>;
  };
  /** POST /api/containers/cleanup */
  "environments.cleanup": {
    removed: Array<Container>;
    errors: Array<string>;
  };
  /** GET /api/triggers */
  "triggers.list": {
    triggers: Array<Trigger>;
    warnings: Array<DefinitionProblem>;
  };
  /** POST /api/triggers/{name} */
  "triggers.deliver": {
    trigger: string;
    runId: string;
    duplicate: boolean;
  } | {
    trigger: string;
    ignored: true;
    reason: string;
  };
  /** GET /api/projects/trust */
  "projects.trustStatus": {
    project: ProjectTrust;
  };
  /** POST /api/projects/trust */
  "projects.trust": {
    project: ProjectTrust;
  };
  /** POST /api/projects/trust/revoke */
  "projects.revokeTrust": {
    project: ProjectTrust;
  };
  /** GET /api/projects/trusted */
  "projects.listTrusted": {
    projects: Array<ProjectTrust>;
  };
}
