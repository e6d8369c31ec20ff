// Prints a demo user's access token, for use in shell commands:
//   curl -H "Authorization: Bearer $(npm run -s token -- rick@the-citadel.com)" localhost:3001/resource/x
//   npm run -s token -- beth@the-smiths.com --id-token
//   npm run -s token -- morty@the-citadel.com --json
import { Command } from 'commander';
import { loadConfig } from '../src/config';
import { loadDirectorySeed } from '../src/directory';
import { TOKEN_PATH } from '../src/idp';

interface Options {
  idToken?: boolean;
  json?: boolean;
  password?: string;
}

/** Fails with a message on stderr and a non-zero exit code; stdout stays empty. */
function fail(message: string, code = 1): never {
  process.stderr.write(`token: ${message}\n`);
  process.exit(code);
}

async function main(): Promise<void> {
  const program = new Command()
    .name('npm run -s token --')
    .description('Signs a demo user in at the IdP and prints the access token (nothing else) on stdout.')
    .argument('<email>', 'the demo user, e.g. rick@the-citadel.com')
    .option('--id-token', 'print the ID token instead (never use it as a bearer token)')
    .option('--json', 'print the whole token response as JSON')
    .option('--password <password>', 'the password (default: the demo password of the directory seed)')
    .parse();
  const [email] = program.args;
  const options = program.opts<Options>();

  const config = loadConfig();
  const seed = loadDirectorySeed(config.directorySeedFile);
  const endpoint = `${config.idp.url}${TOKEN_PATH}`;

  let res: Response;
  try {
    res = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: email, password: options.password ?? seed.demoPassword }),
      signal: AbortSignal.timeout(10_000),
    });
  } catch {
    fail(`cannot reach the IdP at ${config.idp.url} — is the stack running? Start it with \`npm start\` (or set AUTH_URL).`, 2);
  }
  const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;

  if (res.status === 401) {
    const known = seed.directory.users.some((u) => u.email.toLowerCase() === email.toLowerCase());
    if (!known) {
      fail(`unknown user ${email}. Demo users: ${seed.directory.users.map((u) => u.email).join(', ')}`);
    }
    fail(`wrong password for ${email}${options.password === undefined ? ' (the IdP does not accept the demo password from the seed file)' : ''}`);
  }
  if (res.status === 429) fail(`too many failed sign-ins; try again in ${res.headers.get('retry-after') ?? 'a few'} s`);
  if (res.status !== 200) fail(`the IdP answered ${res.status}: ${String(body.error_description ?? body.error ?? 'no details')}`);

  if (options.json) process.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
  else process.stdout.write(`${String(options.idToken ? body.id_token : body.access_token)}\n`);
}

main().catch((err: unknown) => fail(err instanceof Error ? err.message : String(err)));
