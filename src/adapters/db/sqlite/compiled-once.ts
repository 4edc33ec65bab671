import { CompiledQuery, type Compilable } from 'kysely';
import { isPostgres } from '../dialect-of.ts';
import { fastReaderOf } from './fast-reader.ts';
import type { Executor } from '../schema.ts';

/**
 * A query whose SQL is built once per engine and then rerun with new parameters: on hot paths the
 * query builder (building and compiling the operation tree) costs several times more than SQLite takes
 * to answer. The parameters of `build` must appear in the SQL in the order they are given; the first
 * build checks that, so a query that breaks the rule fails at once instead of binding values wrongly.
 * Only reads may be compiled once: on SQLite they run on the fast reader connection (committed data).
 */
export function compiledOnce<P extends unknown[], R>(build: (db: Executor, ...params: P) => Compilable<R>) {
  // The SQL depends only on the engine's dialect (no plugins are used), so one text per engine: a
  // transaction's query reuses its connection's text.
  let sqliteText: string | undefined;
  let postgresText: string | undefined;
  const textFor = (db: Executor, params: P): string => {
    const postgres = isPostgres(db);
    let text = postgres ? postgresText : sqliteText;
    if (text === undefined) {
      const compiled = build(db, ...params).compile();
      if (compiled.parameters.length !== params.length || compiled.parameters.some((value, i) => value !== params[i])) {
        throw new Error(`compiledOnce: the parameters of ${compiled.sql} are not the function's parameters in order`);
      }
      text = compiled.sql;
      if (postgres) postgresText = text;
      else sqliteText = text;
    }
    return text;
  };
  const run = (db: Executor, ...params: P): R[] | Promise<R[]> => {
    const text = textFor(db, params);
    const reader = fastReaderOf(db);
    if (reader) return reader.all<R>(text, params);
    return db.executeQuery<R>(CompiledQuery.raw(text, params)).then((result) => result.rows);
  };
  return run;
}
