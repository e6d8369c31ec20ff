import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONFIG_TABLE_MARKERS, loadConfig, renderConfigTable, renderEnvExample } from '../../src/config';
import { readGeneratedSection } from '../../scripts/lib/generated-section';
import { envSchema } from '../../src/config/env-schema';

const ROOT = join(__dirname, '..', '..');

describe('the configuration docs', () => {
  it('docs/reference/configuration.md holds the table generated from the schema (run npm run config:docs)', () => {
    const readme = readFileSync(join(ROOT, 'docs', 'reference', 'configuration.md'), 'utf8');
    expect(readGeneratedSection(readme, CONFIG_TABLE_MARKERS, 'configuration.md')).toBe(renderConfigTable());
  });

  it('.env.example is the file generated from the schema (run npm run config:docs)', () => {
    expect(readFileSync(join(ROOT, '.env.example'), 'utf8')).toBe(renderEnvExample());
  });

  it('names every variable of the schema once in each', () => {
    const table = renderConfigTable();
    const example = renderEnvExample();
    for (const name of Object.keys(envSchema.shape)) {
      expect(table.match(new RegExp(`^\\| \`${name}\` \\|`, 'gm'))).toHaveLength(1);
      expect(example.match(new RegExp(`^(# )?${name}=`, 'gm'))).toHaveLength(1);
    }
  });

  it('.env.example, loaded as an environment, gives the defaults', () => {
    const env = Object.fromEntries(
      renderEnvExample()
        .split('\n')
        .filter((line) => /^[A-Z_]+=/.test(line))
        .map((line) => line.split(/=(.*)/s).slice(0, 2) as [string, string]),
    );
    expect(loadConfig(env)).toEqual(loadConfig({}));
  });
});
