import { findProjectRoot, readAppList, type AppListEntry } from '../config';

/** What the demo tenant needs of an app of `apps.json`: its connection's key in `demo-tenant.json`, its policy and its label. */
export type DemoApp = Pick<AppListEntry, 'connection' | 'policy' | 'label'>;

/** The label the console shows on an app's embedded-edge connection (`RBAC app (embedded edge)`). */
export function appConnectionLabel(app: Pick<DemoApp, 'label'>): string {
  return `${app.label} (embedded edge)`;
}

/**
 * The apps of the project's `apps.json`: what the seed gives connections to when its caller
 * names none (tests, benches). The control plane passes `config.apps.list` itself.
 */
export function projectApps(): readonly DemoApp[] {
  const { apps, problems } = readAppList(findProjectRoot());
  if (problems.length > 0) throw new Error(problems.join('\n'));
  return apps;
}
