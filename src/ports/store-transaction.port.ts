/**
 * The store's transaction (or the store itself, for a single statement) as a port sees it. Ports
 * name it without knowing the database library: the handle the services already hold satisfies it
 * as it is, and the database adapters turn it back into their own type (`executorOf`), checking at
 * run time that it is one of theirs.
 */
export interface StoreTransaction {
  readonly isTransaction: boolean;
}
