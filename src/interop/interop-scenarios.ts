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
    summary: 'the search demo (AuthZEN 1.0 subject, resource and action search): its six users and twenty records, policies/authzen-search',
    directorySeed: 'data/authzen-search-directory.json',
    policy: 'authzen-search',
  },
  {
    name: 'certification',
    summary: 'the certification checks (Basic, Batch, Search, Discovery): alice, bob, record-1 and record-2, policies/authzen-certification',
    directorySeed: 'data/authzen-certification-directory.json',
    policy: 'authzen-certification',
  },
  {
    name: 'gateway',
    summary: 'the API-gateway scenario (an HTTP method on an OpenAPI route template, subjects of type identity): the Citadel users and policies/authzen-gateway',
    directorySeed: 'data/citadel-directory.json',
    policy: 'authzen-gateway',
  },
];

/** The scenario called `name`, or undefined. */
export function findInteropScenario(name: string): InteropScenario | undefined {
  return INTEROP_SCENARIOS.find((s) => s.name === name);
}
