/**
 * Writes docs/reference/configuration.md's table and `.env.example` from the environment schema
 * (src/config/env-schema.ts), so the three never disagree. A test fails when they drift:
 *
 *   npm run config:docs
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONFIG_TABLE_MARKERS, findProjectRoot, renderConfigTable, renderEnvExample } from '../src/config';
import { writeGeneratedSection } from './lib/generated-section';
import { scriptCommand } from './lib/script-command';

scriptCommand(
  'npm run config:docs --',
  "rewrite the configuration table of docs/reference/configuration.md and .env.example from the environment schema (src/config/env-schema.ts)",
  'npm run config:docs   # after changing a variable in the schema',
).parse();

const root = findProjectRoot();
const readmePath = join(root, 'docs', 'reference', 'configuration.md');
writeFileSync(readmePath, writeGeneratedSection(readFileSync(readmePath, 'utf8'), CONFIG_TABLE_MARKERS, renderConfigTable(), 'docs/reference/configuration.md'));
writeFileSync(join(root, '.env.example'), renderEnvExample());
console.log('docs/reference/configuration.md table and .env.example written');
