import { join } from 'node:path';
import { openSqliteDatabase, type SqlDatabase } from '../../src/sql';

/**
 * Every engine the SQL tests run against: each opens a fresh, empty database in `dir` (a
 * temp folder the test owns and removes). Engines that need a server start it here.
 */
export interface SqlEngineUnderTest {
  readonly name: string;
  open(dir: string): Promise<SqlDatabase>;
}

export const SQL_ENGINES: readonly SqlEngineUnderTest[] = [{ name: 'sqlite', open: async (dir) => openSqliteDatabase(join(dir, 'test.db')) }];
