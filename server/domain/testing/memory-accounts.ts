// Accounts and usage counters in memory (test code): the domain's AccountsStore without SQL.
import type { AccountRow, AccountsStore } from '../ports/accounts.js';
import { copy, type TablesHolder } from './memory-tables.js';

export class MemoryAccounts implements AccountsStore {
  constructor(private readonly h: TablesHolder) {}

  async insert(
    number: string,
    passwordHash: string | null,
    plan: string,
  ): Promise<number | undefined> {
    if (this.h.t.accounts.some((a) => a.number === number)) return undefined;
    const id = ++this.h.t.lastAccountId;
    this.h.t.accounts.push({ id, number, password_hash: passwordHash, plan });
    return id;
  }

  async byNumber(number: string): Promise<AccountRow | undefined> {
    const row = this.h.t.accounts.find((a) => a.number === number);
    return row && copy(row);
  }

  async setPlan(id: number, plan: string): Promise<void> {
    const row = this.h.t.accounts.find((a) => a.id === id);
    if (row) row.plan = plan;
  }

  /** Transactions run one at a time here: nothing to serialise. */
  async lock(_accountId: number): Promise<void> {}

  async usage(accountId: number, period: string): Promise<number> {
    return this.h.t.usage[`${accountId}|${period}`] ?? 0;
  }

  async addUsage(accountId: number, period: string, bytes: number): Promise<number> {
    if (!this.h.t.accounts.some((a) => a.id === accountId))
      throw new Error('foreign key constraint failed: usage.account_id');
    const key = `${accountId}|${period}`;
    this.h.t.usage[key] = (this.h.t.usage[key] ?? 0) + bytes;
    return this.h.t.usage[key];
  }

  async atOrOverCap(period: string, plan: string, capBytes: number): Promise<number[]> {
    return this.h.t.accounts
      .filter((a) => a.plan === plan && (this.h.t.usage[`${a.id}|${period}`] ?? 0) >= capBytes)
      .map((a) => a.id);
  }
}
