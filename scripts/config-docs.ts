/**
 * Writes docs/reference/configuration.md's table and `.env.example` from the environment schema
 * (src/config/env-schema.ts), so the three never disagree. A test fails when they drift:
 *
 *   npm run config:docs
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONFIG_TABLE_MARKERS, findProjectRoot, renderConfigTable, renderEnvExample } from '../src/config';
import { scriptCommand } from './lib/script-command';

scriptCommand(
  'npm run config:docs --',
  "rewrite the configuration table of docs/reference/configuration.md and .env.example from the environment schema (src/config/env-schema.ts)",
  'npm run config:docs   # after changing a variable in the schema',
).parse();

const root = findProjectRoot();
const readmePath = join(root, 'docs', 'reference', 'configuration.md');
const readme = readFileSync(readmePath, 'utf8');
const [open, close] = CONFIG_TABLE_MARKERS;
const start = readme.indexOf(open);
const end = readme.indexOf(close);
if (start < 0 || end < start) throw new Error(`docs/reference/configuration.md has no ${open} … ${close} section`);
writeFileSync(readmePath, `${readme.slice(0, start + open.length)}\n${renderConfigTable()}\n${readme.slice(end)}`);
writeFileSync(join(root, '.env.example'), renderEnvExample());
console.log('docs/reference/configuration.md table and .env.example written');
