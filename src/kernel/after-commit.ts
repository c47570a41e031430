/** Work a write asked to start once its transaction committed (`ResourceContext.afterCommit`, SCIM writes). */
export type AfterCommitTask = () => Promise<void>;

/** Hands a task to the write under way, to start once it committed (never after a rollback). */
export type AfterCommit = (task: AfterCommitTask) => void;
