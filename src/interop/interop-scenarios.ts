/**
 * The OpenID AuthZEN working group's interop scenarios `npm run interop` can serve, one
 * entry each. A scenario names its fixture — the directory seed (users, identities,
 * resources) and the policy folder (with its own tests) — that the PDP is loaded with;
 * both are the project's own, so the PDP decides as the apps do. A scenario whose parts
 * are not built yet says so instead of starting a PDP that would fail it.
 */
export interface InteropScenario {
  /** What `npm run interop -- <name>` calls it. */
  readonly name: string;
  /** One line for `--help`. */
  readonly summary: string;
  /** The directory seed, relative to the project root (the IdP's format: roles, users, resources). */
  readonly directorySeed: string;
  /** The policy folder under `policies/`. */
  readonly policy: string;
  /** Set while the scenario cannot be passed yet: why, for the refusal. */
  readonly unavailable?: string;
}

/** Every scenario, in the order `--help` lists them. */
export const INTEROP_SCENARIOS: readonly InteropScenario[] = [
  {
    name: 'todo',
    summary: 'the Todo app (AuthZEN 1.0 evaluation and evaluations): the Citadel users and policies/todo',
    directorySeed: 'data/citadel-directory.json',
    policy: 'todo',
  },
  {
    name: 'search',
    summary: 'the search demo (AuthZEN 1.0 subject, resource and action search)',
    directorySeed: 'data/citadel-directory.json',
    policy: 'todo',
    unavailable: 'the AuthZEN search APIs (/access/v1/search/*) are not built yet (issue 20, item 3)',
  },
  {
    name: 'certification',
    summary: 'the certification checks (Basic, Batch, Search, Discovery)',
    directorySeed: 'data/citadel-directory.json',
    policy: 'todo',
    unavailable: 'the certification fixture and its batch and search behaviour are not built yet (issue 20, items 3 and 4)',
  },
];

/** The scenario called `name`, or undefined. */
export function findInteropScenario(name: string): InteropScenario | undefined {
  return INTEROP_SCENARIOS.find((s) => s.name === name);
}
