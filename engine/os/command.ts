// Moved to platform/os/command.ts (issue 19); this re-export stays only until the files still
// importing this path in the last commit (other parts' work in progress) are committed.
export * from '../../platform/os/command.js';
