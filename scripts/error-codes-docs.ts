/**
 * Writes docs/reference/api.md's list of every error code from the one table
 * (src/http/error-codes.ts), so the reference and the code never disagree. A test fails when
 * they drift (test/docs/error-codes.test.ts):
 *
 *   npm run error-codes:docs
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findProjectRoot } from '../src/config';
import { ERROR_CODES_MARKERS, renderErrorCodesTable } from '../src/http';
import { writeGeneratedSection } from './lib/generated-section';
import { scriptCommand } from './lib/script-command';

scriptCommand(
  'npm run error-codes:docs --',
  "rewrite the error code list of docs/reference/api.md from the table of error codes (src/http/error-codes.ts)",
  'npm run error-codes:docs   # after adding or changing a code in the table',
).parse();

const path = join(findProjectRoot(), 'docs', 'reference', 'api.md');
writeFileSync(path, writeGeneratedSection(readFileSync(path, 'utf8'), ERROR_CODES_MARKERS, renderErrorCodesTable(), 'docs/reference/api.md'));
console.log('docs/reference/api.md error codes written');
