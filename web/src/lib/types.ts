// Shapes of the daemon's answers the dashboard reads (docs/api.md). Only what is used.

export interface Capabilities {
  canReady?: boolean;
  canResume?: boolean;
  canAbort?: boolean;
  abortReason?: string | null;
  canArchive?: boolean;
  canUnarchive?: boolean;
  canReset?: boolean;
  canDelete?: boolean;
  canReconfigure?: boolean;
  canQueueMessage?: boolean;
  canRemoveQueuedMessage?: boolean;
  canEditDependencies?: boolean;
  taskMutation?: { canSetStatus?: boolean; canSetNotes?: boolean; canAppendNotes?: boolean; canAdd?: boolean; canEditPending?: boolean; canDeletePending?: boolean };
}

export interface SessionSummary {
  index: number;
  status: string;
  startedAt: string | null;
  endedAt: string | null;
  endReason: string | null;
}

export interface UsageCounts {
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
  reasoningTokens: number;
  costUsd: number | null;
}

export interface RunUsage extends UsageCounts {
  models: (UsageCounts & { model: string | null })[];
  warnings?: string[];
}

export interface RunSummary {
  runId: string;
  name: string | null;
  status: string;
  statusReason: string;
  agent: string;
  assignment: string | null;
  backend: string;
  model: string | null;
  cwd: string;
  /** The git work tree the cwd is in, when it is in one. */
  repo?: string | null;
  runGroupId: string;
  parentRunId: string | null;
  pinned: boolean;
  notePresent: boolean;
  archived: boolean;
  createdAt: string;
  updatedAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  taskCounts: { total: number; pending: number; inProgress: number; completed: number; blocked: number };
  activeTask: { id: string; title: string } | null;
  totalAttemptCount: number;
  totalSessionCount: number;
  queuedMessageCount: number;
  currentSession: SessionSummary | null;
  lastSession: SessionSummary | null;
  dependencyState?: { state: 'none' | 'waiting' | 'satisfied'; total: number; satisfied: number } | null;
  schedule?: Record<string, any> | null;
  scheduleState?: { state: string; reason: string | null; nextAt: string | null } | null;
  diffstat?: { files: number; additions: number; deletions: number } | null;
  /** Tokens used and their cost by prices.yaml (docs/usage.md); costUsd null when a model has no price. */
  usage?: RunUsage;
  damaged?: { reason: string } | null;
  revision: number;
  capabilities: Capabilities;
}

export interface Task {
  runId: string;
  id: string;
  title: string;
  body: string;
  status: string;
  notes: string;
  source: string;
  position: number;
}

export interface QueuedMessage {
  id: string;
  runId: string;
  text: string;
  createdAt: string;
  source: Record<string, any>;
}

export interface PendingApproval {
  approvalId: string;
  kind: string;
  summary: string;
  details?: unknown;
  requestedAt: string;
}

export interface Attachment {
  attachmentId: string;
  runId: string;
  runGroupId: string;
  name: string;
  sha256: string;
  size: number;
  contentType: string;
  createdAt: string;
}

export interface RunDetail extends RunSummary {
  note: string | null;
  /** The execution environment the run froze (docs/environments.md); null on the host. */
  environment?: { name: string; kind: string; network: string } | null;
  message: string;
  vars: Record<string, unknown>;
  tasks: Task[];
  sessions: Array<{
    index: number;
    status: string;
    startedAt: string | null;
    endedAt: string | null;
    endReason: string | null;
    endedBy: string | null;
    prompt: string;
    source?: unknown;
    attempts: Array<{ attemptNumber: number; sessionIndex: number; attemptIndexInSession: number; startedAt: string | null; endedAt: string | null; outcome: string | null }>;
  }>;
  queuedResumeMessages: QueuedMessage[];
  pendingApprovals: PendingApproval[];
  /** Who holds the running run's lease (the member driving it); null when not running. */
  owner: { daemonId: string; name: string; epoch: number; leaseExpiresAt: string } | null;
  attachments: Attachment[];
  dependencies?: Array<Record<string, any>>;
  dependents?: Array<Record<string, any>>;
}

export const STATUSES = ['running', 'ready', 'initialized', 'blocked', 'error', 'exhausted', 'aborted', 'success'] as const;

/** How a member's heartbeat looks from the store (docs/scale-out.md#members). */
export type MemberState = 'alive' | 'suspect' | 'dead';

/** One daemon serving the store, as GET /api/daemons lists it. */
export interface Member {
  daemonId: string;
  name: string;
  host: string;
  pid: number;
  advertiseUrl: string;
  labels: string[];
  /** Live runs it takes at most; null: no limit. */
  capacity: number | null;
  liveRuns: number;
  version: string;
  startedAt: string;
  heartbeatAt: string;
  /** Aged by the database's clock, not this browser's. */
  heartbeatAgeMs: number;
  state: MemberState;
  /** The daemon serving this page. */
  self: boolean;
}
